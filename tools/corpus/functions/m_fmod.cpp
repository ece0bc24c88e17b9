// dim: 2
// cmath: fmod and remainder with a constant divisor.
double m_fmod(const double *x) {
  return fmod(x[0] * 3 + 0.05, 7.0) * x[1] + remainder(x[1] + 10.1, 4.0);
}
