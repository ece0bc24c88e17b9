// dim: 3
// Products and quotients of parameters.
double f_mult2(double x, double y) { return 3 * x * 4 * y; }
double f_div2(double x, double y) { return 3 * x / (4 * y); }
double f_div3(double x, double y) { return (x + 1) / (y * y); }
double clad_gr_mult_div(const double *x) {
  return f_mult2(x[0], x[1]) + f_div2(x[1], x[2]) - f_div3(x[2], x[0]);
}
