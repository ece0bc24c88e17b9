// dim: 3
// cmath: hypot with two arguments, nested.
double m_hypot(const double *x) {
  return hypot(x[0], hypot(x[1], x[2])) * hypot(x[0] - x[1], 0.5);
}
