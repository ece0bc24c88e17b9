// dim: 4
// Pointer arithmetic: walking backwards from the end.
double ptr_reverse(const double *x) {
  const double *p = x + 3;
  double r = 0;
  while (p >= x) {
    r = r * 0.5 + *p;
    --p;
  }
  return r * r;
}
