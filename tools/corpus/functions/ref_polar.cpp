// dim: 2
// References: two outputs of a conversion (polar coordinates).
void toPolar(double px, double py, double &r, double &theta) {
  r = sqrt(px * px + py * py);
  theta = atan2(py, px);
}
double ref_polar(const double *x) {
  double r, t;
  toPolar(x[0], x[1], r, t);
  return r * cos(2 * t);
}
