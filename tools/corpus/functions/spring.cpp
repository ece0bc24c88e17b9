// dim: 6
// point: 0 0 0 1 0.2 0
// A spring between two points: (|p - q| - 1)^2.
double spring(const double *x) {
  double dx = x[0] - x[3], dy = x[1] - x[4], dz = x[2] - x[5];
  double l = sqrt(dx * dx + dy * dy + dz * dz);
  return (l - 1.0) * (l - 1.0);
}
