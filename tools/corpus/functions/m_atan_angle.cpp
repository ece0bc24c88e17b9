// dim: 4
// cmath: the angle between two 2D vectors through atan2.
double m_atan_angle(const double *x) {
  double c = x[0] * x[2] + x[1] * x[3];
  double s = x[0] * x[3] - x[1] * x[2];
  return atan2(s, c);
}
