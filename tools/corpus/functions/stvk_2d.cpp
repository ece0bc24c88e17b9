// dim: 6
// point: 0 0 1 0 0 1
// St. Venant-Kirchhoff energy of a triangle, Green strain in a local array.
double stvk_2d(const double *x) {
  double F[2][2] = {{x[2] - x[0], x[4] - x[0]}, {x[3] - x[1], x[5] - x[1]}};
  double E[2][2];
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j) {
      double s = 0;
      for (int k = 0; k < 2; ++k)
        s += F[k][i] * F[k][j];
      E[i][j] = 0.5 * (s - (i == j ? 1.0 : 0.0));
    }
  double tr = E[0][0] + E[1][1];
  double ee = 0;
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j)
      ee += E[i][j] * E[i][j];
  return 0.5 * tr * tr + ee;
}
