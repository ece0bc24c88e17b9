// dim: 2
// A variable declared in a while condition.
double fn_cond_decl(double x, double y) {
  double r = 0;
  int i = 3;
  while (int j = i--)
    r += j * x * y;
  return r;
}
double clad_gr_loop_decl_in_cond(const double *x) { return fn_cond_decl(x[0], x[1]); }
