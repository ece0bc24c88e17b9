// dim: 2
// Locals and an early return on a computed condition.
double f_decls3(double x, double y) {
  double a = 3 * x;
  double c = 333 * y;
  if (x > 1)
    return 2 * a;
  else if (x < -1)
    return -2 * a;
  double b = a * a;
  return b + c;
}
double clad_gr_decls_branch(const double *x) { return f_decls3(x[0], x[1]); }
