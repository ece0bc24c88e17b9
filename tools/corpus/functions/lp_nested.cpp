// dim: 3
// Loops: nested loops over a small matrix.
double lp_nested(const double *x) {
  double s = 0;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      s += x[i] * x[j] / (1 + i + j);
  return s;
}
