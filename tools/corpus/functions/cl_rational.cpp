// dim: 2
// A rational function.
double cl_rational(const double *x) {
  return (x[0] * x[0] + 1) / (x[1] * x[1] + x[0] + 2);
}
