// dim: 8
// Squared umbrella Laplacian on a ring.
double laplacian_smooth(const double *x) {
  double e = 0;
  for (int i = 0; i < 8; ++i) {
    double l = x[i] - 0.5 * (x[(i + 1) % 8] + x[(i + 7) % 8]);
    e += l * l;
  }
  return e;
}
