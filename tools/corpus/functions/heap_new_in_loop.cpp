// dim: 3
// new[] of a run-time size in every iteration of a loop, deleted in it.
double smoothed(const double *x, int n, int rounds) {
  double s = 0;
  for (int r = 0; r < rounds; ++r) {
    double *t = new double[n];
    for (int i = 0; i < n; ++i)
      t[i] = x[i] * (1 + s);
    for (int i = 1; i < n; ++i)
      s += t[i] * t[i - 1];
    delete[] t;
  }
  return s;
}
double heap_new_in_loop(const double *x) { return smoothed(x, 3, 2); }
