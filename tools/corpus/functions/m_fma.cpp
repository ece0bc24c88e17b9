// dim: 3
// cmath: fma.
double m_fma(const double *x) { return fma(x[0], x[1], x[2] * x[2]); }
