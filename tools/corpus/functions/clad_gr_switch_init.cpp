// dim: 2
// A switch with an initializer.
double fn_switch_init(double x, double y) {
  switch (int k = 2; k) {
  case 1:
    return x;
  case 2:
    return x * y;
  default:
    return y;
  }
}
double clad_gr_switch_init(const double *x) { return fn_switch_init(x[0], x[1]); }
