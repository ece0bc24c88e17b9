// dim: 2
// A helper with a default argument.
double weight(double v, double k = 2.0) { return exp(-k * v * v); }
double cl_default_arg(const double *x) {
  return weight(x[0]) + weight(x[1], 0.5);
}
