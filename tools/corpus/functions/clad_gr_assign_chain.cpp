// dim: 2
// Parameters reassigned from each other.
double f3(double x, double y) {
  x = x;
  x = x * x;
  y = x * x;
  x = y;
  return y;
}
double clad_gr_assign_chain(const double *x) { return f3(x[0], x[1]) + x[1]; }
