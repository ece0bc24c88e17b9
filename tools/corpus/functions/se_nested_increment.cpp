// dim: 4
// Side effects: a[i++] += b[j++] in one statement.
double se_nested_increment(const double *x) {
  double a[2] = {1.0, 2.0};
  int i = 0, j = 2;
  a[i++] += x[j++] * x[0];
  a[i++] += x[j++] * x[1];
  return a[0] * a[1];
}
