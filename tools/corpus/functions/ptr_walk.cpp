// dim: 4
// Pointer arithmetic: a pointer walks the input with *p++.
double ptr_walk(const double *x) {
  const double *p = x;
  double s = 0;
  for (int i = 0; i < 4; ++i)
    s += *p++ * (i + 1);
  return s * s;
}
