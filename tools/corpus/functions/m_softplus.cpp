// dim: 3
// cmath: softplus and the logistic function.
double softplus(double v) { return log1p(exp(v)); }
double logistic(double v) { return 1.0 / (1.0 + exp(-v)); }
double m_softplus(const double *x) {
  return softplus(x[0] - x[1]) + logistic(x[2]) * x[0];
}
