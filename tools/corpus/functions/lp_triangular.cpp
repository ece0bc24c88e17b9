// dim: 4
// Loops: a triangular loop nest.
double lp_triangular(const double *x) {
  double s = 0;
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j <= i; ++j)
      s += x[i] * x[j];
  return s;
}
