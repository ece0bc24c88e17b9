// dim: 2
// cmath: pow with variable base and exponent, and integer powers.
double m_pow(const double *x) {
  return pow(x[0], x[1]) + pow(x[1], 3.0) + pow(2.0, x[0]) + pow(x[0], 2);
}
