// dim: 2
// The comma operator in a return.
double fn_comma(double x, double y) {
  double t = 1;
  return t = x, t *= y, t + x;
}
double clad_gr_comma(const double *x) { return fn_comma(x[0], x[1]); }
