// dim: 2
// Locals declared from expressions and combined.
double f_decls2(double x, double y) {
  double a = x * x;
  double b = x * y;
  double c = y * y;
  return a + 2 * b + c;
}
double clad_gr_decls(const double *x) { return f_decls2(x[0], x[1]); }
