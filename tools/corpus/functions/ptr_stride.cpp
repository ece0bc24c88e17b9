// dim: 6
// Pointer arithmetic: a strided walk over interleaved pairs.
double ptr_stride(const double *x) {
  double s = 0;
  for (const double *p = x; p < x + 6; p += 2)
    s += p[0] * p[1];
  return s;
}
