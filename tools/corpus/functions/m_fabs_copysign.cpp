// dim: 2
// cmath: fabs and copysign away from zero.
double m_fabs_copysign(const double *x) {
  return fabs(x[0] - 2.0) * x[1] + copysign(x[0] * x[1], -1.0);
}
