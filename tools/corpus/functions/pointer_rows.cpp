// dim: 9
// Rows of a 3x3 matrix through pointer aliases: the Frobenius norm of
// A^T A - I.
double pointer_rows(const double *x) {
  double e = 0;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      const double *ci = x + i, *cj = x + j;
      double s = 0;
      for (int k = 0; k < 3; ++k)
        s += ci[3 * k] * cj[3 * k];
      double d = s - (i == j ? 1.0 : 0.0);
      e += d * d;
    }
  return e;
}
