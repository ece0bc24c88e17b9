// dim: 3
// cmath: sin, cos, tan.
double m_trig(const double *x) {
  return sin(x[0]) * cos(x[1]) + tan(0.5 * x[2]);
}
