// dim: 2
// cmath: tgamma and lgamma.
double m_gamma(const double *x) {
  return tgamma(1 + x[0]) + lgamma(2 + x[1]) * x[0];
}
