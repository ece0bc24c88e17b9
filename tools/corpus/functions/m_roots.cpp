// dim: 2
// cmath: sqrt, cbrt, rsqrt-style 1/sqrt.
double m_roots(const double *x) {
  return sqrt(x[0] + x[1]) + cbrt(x[0] * x[1]) + 1.0 / sqrt(1 + x[1]);
}
