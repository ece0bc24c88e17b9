// dim: 2
// A loop that skips iterations with continue.
double fn_continue(double x, double y) {
  double r = 0;
  for (int i = 0; i < 6; i++) {
    if (i % 3 == 0)
      continue;
    r += x * i + y * y;
  }
  return r;
}
double clad_gr_loop_continue(const double *x) { return fn_continue(x[0], x[1]); }
