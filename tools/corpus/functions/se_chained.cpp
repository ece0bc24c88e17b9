// dim: 3
// Side effects: chained assignments a = b = c.
double se_chained(const double *x) {
  double a, b, c;
  a = b = c = x[0] * x[1];
  a += x[2];
  b *= a;
  return a + b + c * c;
}
