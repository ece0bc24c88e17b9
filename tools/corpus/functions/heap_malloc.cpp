// dim: 3
// malloc/free of a local buffer.
double heap_malloc(const double *x) {
  double *t = (double *)malloc(3 * sizeof(double));
  for (int i = 0; i < 3; ++i)
    t[i] = x[i] * x[i];
  double s = t[0] + t[1] * t[2];
  free(t);
  return s;
}
