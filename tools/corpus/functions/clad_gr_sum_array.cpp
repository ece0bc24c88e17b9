// dim: 4
// A sum over an array parameter with a run-time length.
double sum(const double *p, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += p[i];
  return s;
}
double clad_gr_sum_array(const double *x) { return sum(x, 4) * sum(x + 1, 2); }
