// dim: 3
// cmath: asinh, acosh, atanh.
double m_inverse_hyperbolic(const double *x) {
  return asinh(x[0]) + acosh(1.5 + x[1]) * atanh(0.5 * x[2]);
}
