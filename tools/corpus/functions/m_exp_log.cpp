// dim: 2
// cmath: exp, log, log1p, expm1.
double m_exp_log(const double *x) {
  return exp(x[0]) * log(x[1] + 1) + log1p(x[0] * x[1]) - expm1(-x[1]);
}
