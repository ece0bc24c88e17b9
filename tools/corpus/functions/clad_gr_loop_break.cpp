// dim: 2
// point: 0.7 0.9
// A loop left by break on a data-dependent condition.
double fn_break(double x, double y) {
  double r = 0;
  for (int i = 0; i < 10; i++) {
    r += x * y;
    if (r > 2)
      break;
  }
  return r;
}
double clad_gr_loop_break(const double *x) { return fn_break(x[0], x[1]); }
