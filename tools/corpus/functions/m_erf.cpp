// dim: 2
// cmath: erf and erfc.
double m_erf(const double *x) {
  return erf(x[0] - x[1]) + x[0] * erfc(x[1]);
}
