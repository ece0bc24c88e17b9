// dim: 3
// cmath: asin, acos, atan, atan2.
double m_inverse_trig(const double *x) {
  return asin(0.5 * x[0]) + acos(0.5 * x[1]) * atan(x[2]) +
         atan2(x[0], x[2] + 1);
}
