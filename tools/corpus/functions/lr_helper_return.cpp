// dim: 4
// Loops with return: a helper that returns from its loop, called twice.
double firstBig(const double *v, int n, int skip) {
  for (int i = skip; i < n; ++i)
    if (i > skip)
      return v[i] * v[i - 1];
  return v[0];
}
double lr_helper_return(const double *x) {
  return firstBig(x, 4, 0) + firstBig(x, 4, 2);
}
