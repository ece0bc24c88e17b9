// dim: 3
// new[] of a size given by a parameter.
double fn_new_n(const double *x, int n) {
  double *t = new double[n];
  for (int i = 0; i < n; ++i)
    t[i] = x[i] * x[i];
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += t[i] * (i + 1);
  delete[] t;
  return s;
}
double clad_gr_new_runtime(const double *x) { return fn_new_n(x, 3); }
