// dim: 2
// A switch inside a loop.
double fn_switch_loop(double x, double y) {
  double r = 0;
  for (int i = 0; i < 4; ++i) {
    switch (i % 3) {
    case 0:
      r += x;
      break;
    case 1:
      r *= y;
      break;
    default:
      r -= x * y;
    }
  }
  return r;
}
double clad_gr_switch_in_loop(const double *x) { return fn_switch_loop(x[0], x[1]); }
