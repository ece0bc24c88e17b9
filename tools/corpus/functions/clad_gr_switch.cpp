// dim: 2
// A switch on an integer parameter with fallthrough.
double fn_switch(double x, double y, int k) {
  double r = 0;
  switch (k) {
  case 0:
    r = x;
  case 1:
    r += y * x;
    break;
  case 2:
    r = x * x;
    break;
  default:
    r = y;
  }
  return r;
}
double clad_gr_switch(const double *x) {
  return fn_switch(x[0], x[1], 0) + fn_switch(x[0], x[1], 2) * fn_switch(x[1], x[0], 5);
}
