// dim: 4
// The log-likelihood of a Gaussian with covariance sigma^2 I.
double sq(double x) { return x * x; }
double f_log_gaus(const double *x, const double *p, double n, double sigma) {
  double power = 0;
  for (int i = 0; i < n; i++)
    power += sq(x[i] - p[i]);
  power = -power / (2 * sq(sigma));
  double gaus = 1. / std::sqrt(std::pow(2 * M_PI, n) * sigma) * std::exp(power);
  return std::log(gaus);
}
double clad_gr_log_gaus(const double *x) {
  const double p[2] = {0.3, 0.6};
  return f_log_gaus(x, p, 2, 0.5 + x[2] * x[3]);
}
