// dim: 3
// cmath: a Gaussian density with its normalization.
double m_gaussian(const double *x) {
  double mu = x[1], sigma = 0.5 + x[2];
  double z = (x[0] - mu) / sigma;
  return exp(-0.5 * z * z) / (sigma * sqrt(2 * M_PI));
}
