// dim: 2
// fma, atan2, hypot, erf, log10, exp2, cbrt.
double f_misc(double x, double y) {
  return std::fma(x, y, x) + std::atan2(y, x) + std::hypot(x, y) + std::erf(x) +
         std::log10(y) + std::exp2(x) + std::cbrt(y);
}
double clad_fd_builtin_misc(const double *x) { return f_misc(x[0], x[1]); }
