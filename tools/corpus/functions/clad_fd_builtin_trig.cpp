// dim: 2
// Trigonometric functions and their inverses.
double f_trig(double x, double y) {
  return std::sin(x) * std::cos(y) + std::tan(x * y) + std::atan(x) + std::asin(y) +
         std::acos(0.5 * x);
}
double clad_fd_builtin_trig(const double *x) { return f_trig(x[0], x[1]); }
