// dim: 6
// Stable log-sum-exp with the maximum found in a loop.
double logsumexp(const double *x) {
  double m = x[0];
  for (int i = 1; i < 6; ++i)
    if (x[i] > m)
      m = x[i];
  double s = 0;
  for (int i = 0; i < 6; ++i)
    s += exp(x[i] - m);
  return m + log(s);
}
