// dim: 1
// cmath: sinc away from zero.
double m_sinc(const double *x) { return sin(3 * x[0]) / (3 * x[0]); }
