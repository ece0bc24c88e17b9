// dim: 4
// Pointer arithmetic: a pointer into a local array, written through.
double ptr_local_array(const double *x) {
  double buf[4];
  double *w = buf;
  for (int i = 0; i < 4; ++i)
    *w++ = x[i] * x[(i + 1) % 4];
  return buf[0] + buf[1] * buf[2] - buf[3];
}
