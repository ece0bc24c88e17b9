// dim: 2
// Chained assignments a = b = expr.
double f11(double x, double y) {
  double a, b;
  a = b = x * y;
  a *= b;
  return a + b;
}
double clad_gr_chained_assign(const double *x) { return f11(x[0], x[1]); }
