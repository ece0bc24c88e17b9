// dim: 6
// Loops: pairwise interactions (all pairs i < j).
double lp_unrolled_pairs(const double *x) {
  double e = 0;
  for (int i = 0; i < 3; ++i)
    for (int j = i + 1; j < 3; ++j) {
      double dx = x[2 * i] - x[2 * j], dy = x[2 * i + 1] - x[2 * j + 1];
      e += 1.0 / sqrt(dx * dx + dy * dy + 0.1);
    }
  return e;
}
