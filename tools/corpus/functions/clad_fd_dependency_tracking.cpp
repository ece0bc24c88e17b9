// dim: 2
// A local that stops depending on the input.
double f_dep(double x, double y) {
  double r = x * y;
  r = 5;
  double s = x + r;
  s *= y;
  return s;
}
double clad_fd_dependency_tracking(const double *x) { return f_dep(x[0], x[1]); }
