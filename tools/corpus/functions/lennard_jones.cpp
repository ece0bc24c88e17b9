// dim: 9
// point: 0 0 0 1.1 0 0 0 1.2 0
// Lennard-Jones energy of three particles.
double lennard_jones(const double *x) {
  double e = 0;
  for (int i = 0; i < 3; ++i)
    for (int j = i + 1; j < 3; ++j) {
      double r2 = 0;
      for (int k = 0; k < 3; ++k) {
        double d = x[3 * i + k] - x[3 * j + k];
        r2 += d * d;
      }
      double s6 = 1.0 / (r2 * r2 * r2);
      e += 4.0 * (s6 * s6 - s6);
    }
  return e;
}
