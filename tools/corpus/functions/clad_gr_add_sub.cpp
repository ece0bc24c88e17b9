// dim: 3
// Sums and differences with constant factors.
double f_add3(double x, double y) { return 3 * x + 4 * y * 4; }
double f_sub2(double x, double y) { return 3 * x - 4 * y; }
double clad_gr_add_sub(const double *x) {
  return f_add3(x[0], x[1]) * f_sub2(x[1], x[2]);
}
