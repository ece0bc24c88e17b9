// dim: 4
// As-rigid-as-possible edge term in 2D with the rotation angle x[3].
double arap_edge(const double *x) {
  double c = cos(x[3]), s = sin(x[3]);
  double ex = x[0] - 1.0, ey = x[1] - x[2];
  double rx = c * 1.0 - s * 0.5, ry = s * 1.0 + c * 0.5;
  return (ex - rx) * (ex - rx) + (ey - ry) * (ey - ry);
}
