// dim: 6
// Pointer arithmetic: the second half through an offset pointer.
double ptr_offset(const double *x) {
  const double *a = x, *b = x + 3;
  double d = 0;
  for (int i = 0; i < 3; ++i)
    d += (a[i] - b[i]) * (a[i] - b[i]);
  return d;
}
