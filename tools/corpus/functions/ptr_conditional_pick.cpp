// dim: 4
// Pointers: a pointer chosen by a condition.
double ptr_conditional_pick(const double *x) {
  const double *p = x[0] > 0.1 ? x + 2 : x;
  return p[0] * p[1] + x[0];
}
