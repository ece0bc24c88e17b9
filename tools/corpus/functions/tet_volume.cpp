// dim: 12
// point: 0 0 0 1 0 0 0 1 0 0 0 1
// The signed volume of a tetrahedron, squared deviation from 1/6.
double tet_volume(const double *x) {
  double e[3][3];
  for (int i = 0; i < 3; ++i)
    for (int k = 0; k < 3; ++k)
      e[i][k] = x[3 * (i + 1) + k] - x[k];
  double det = e[0][0] * (e[1][1] * e[2][2] - e[1][2] * e[2][1]) -
               e[0][1] * (e[1][0] * e[2][2] - e[1][2] * e[2][0]) +
               e[0][2] * (e[1][0] * e[2][1] - e[1][1] * e[2][0]);
  double v = det / 6.0;
  return (v - 1.0 / 6.0) * (v - 1.0 / 6.0);
}
