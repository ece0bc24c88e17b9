// dim: 9
// Softened gravitational potential, a while loop over pairs.
double gravity(const double *x) {
  double e = 0;
  int p = 0;
  while (p < 3) {
    int q = (p + 1) % 3;
    double dx = x[3 * p] - x[3 * q], dy = x[3 * p + 1] - x[3 * q + 1],
           dz = x[3 * p + 2] - x[3 * q + 2];
    e -= 1.0 / sqrt(dx * dx + dy * dy + dz * dz + 0.1);
    ++p;
  }
  return e;
}
