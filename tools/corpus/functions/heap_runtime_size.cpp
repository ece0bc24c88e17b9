// dim: 3
// new[] of a run-time size.
double heap_runtime_size(const double *x) {
  int n = 3;
  double *t = new double[n];
  for (int i = 0; i < n; ++i)
    t[i] = sqrt(x[i]);
  double s = t[0] * t[1] + t[2];
  delete[] t;
  return s;
}
