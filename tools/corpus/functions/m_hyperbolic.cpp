// dim: 3
// cmath: sinh, cosh, tanh.
double m_hyperbolic(const double *x) {
  return sinh(x[0]) * cosh(x[1]) - tanh(x[2] * x[0]);
}
