// dim: 2
// point: 0.3 0.8
// fabs, std::abs, std::min and std::max.
double f_absmm(double x, double y) {
  return std::fabs(x - y) + std::abs(y - 2 * x) + std::max(x, y) * std::min(x * x, y);
}
double clad_fd_abs_minmax(const double *x) { return f_absmm(x[0], x[1]); }
