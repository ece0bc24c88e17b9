// dim: 2
// Nested scopes with locals of the same name.
double f_shadow(double x, double y) {
  double t = x;
  {
    double t = y * y;
    x += t;
  }
  return t * x;
}
double clad_fd_variables_shadow(const double *x) { return f_shadow(x[0], x[1]); }
