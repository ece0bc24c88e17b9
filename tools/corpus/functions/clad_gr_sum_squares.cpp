// dim: 4
// A sum of squares through a helper in a loop.
double sq(double x) { return x * x; }
double sum_squares(const double *p, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += sq(p[i]);
  return s;
}
double clad_gr_sum_squares(const double *x) { return sum_squares(x, 4); }
