// dim: 2
// Hyperbolic functions.
double f_hyp(double x, double y) {
  return std::sinh(x) * std::cosh(y) + std::tanh(x - y) + std::atanh(0.5 * y);
}
double clad_fd_builtin_hyperbolic(const double *x) { return f_hyp(x[0], x[1]); }
