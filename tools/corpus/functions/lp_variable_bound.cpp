// dim: 3
// Loops: the bound read from an integer computed before.
double lp_variable_bound(const double *x) {
  int n = 2 + 1;
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += pow(x[i], i + 1);
  return s;
}
