// dim: 3
// Side effects: a counter advanced on one side of a conditional.
double se_update_in_ternary(const double *x) {
  int k = 0;
  double s = 0;
  for (int i = 0; i < 3; ++i) {
    s += x[i] > 0.1 ? x[k++] * x[i] : x[i];
  }
  return s + k;
}
