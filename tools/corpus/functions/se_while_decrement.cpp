// dim: 2
// Side effects: while (n--) repeating a rotation.
double se_while_decrement(const double *x) {
  double c = x[0], s = x[1];
  int n = 6;
  while (n--) {
    double c2 = c * 0.8 - s * 0.6;
    s = c * 0.6 + s * 0.8;
    c = c2;
  }
  return c * c + 3 * s;
}
