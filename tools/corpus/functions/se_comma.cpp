// dim: 3
// Side effects: the comma operator in a for loop and in a statement.
double se_comma(const double *x) {
  double a = x[0], b = x[1], s = 0;
  for (int i = 0, j = 2; i < 3; ++i, --j)
    s += x[i] * x[j];
  a *= 2, b += a;
  return s + a * b;
}
