// dim: 2
// exp, log, pow and sqrt.
double f_exp(double x, double y) {
  return std::exp(x) * std::log(y) + std::pow(x, y) + std::sqrt(x * y) + std::pow(y, 3);
}
double clad_fd_builtin_exp_log(const double *x) { return f_exp(x[0], x[1]); }
