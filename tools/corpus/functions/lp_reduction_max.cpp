// dim: 4
// Loops: a soft maximum by log-sum-exp with the max shifted out.
double lp_reduction_max(const double *x) {
  double m = x[0];
  for (int i = 1; i < 4; ++i)
    m = fmax(m, x[i]);
  double s = 0;
  for (int i = 0; i < 4; ++i)
    s += exp(x[i] - m);
  return m + log(s);
}
