// dim: 2
// A static helper and a constexpr constant.
constexpr double kScale = 1.5;
static double scaled(double v) { return kScale * v; }
double cl_static_helper(const double *x) {
  return scaled(x[0]) * scaled(x[1]) + kScale;
}
