// dim: 2
// point: 0.45 0.6
// floor and ceil, constant almost everywhere, inside products.
double f_round(double x, double y) {
  return std::floor(3 * x) * y + std::ceil(2 * y) * x + std::round(x) * y;
}
double clad_fd_floor_ceil(const double *x) { return f_round(x[0], x[1]); }
