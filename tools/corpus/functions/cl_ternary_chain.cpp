// dim: 3
// A chain of conditionals.
double cl_ternary_chain(const double *x) {
  double a = x[0] > 1.5 ? x[0] * x[1] : x[1] / x[0];
  double b = x[2] < 2.0 ? (x[1] > 5.0 ? 0.0 : x[2] * a) : a;
  return a + b;
}
