// dim: 3
// malloc of a size given by a parameter, and its free.
double weighted_squares(const double *x, int n) {
  double *t = (double *)malloc(n * sizeof(double));
  for (int i = 0; i < n; ++i)
    t[i] = x[i] * x[(i + 1) % n];
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += t[i] * t[i] * (i + 1);
  free(t);
  return s;
}
double heap_malloc_runtime(const double *x) { return weighted_squares(x, 3); }
