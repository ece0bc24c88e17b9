// dim: 2
// cmath: exp2, log2, log10.
double m_exp2_log2(const double *x) {
  return exp2(x[0]) * log2(1 + x[1]) + log10(2 + x[0] * x[1]);
}
