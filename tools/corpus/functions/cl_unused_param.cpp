// dim: 3
// An input that does not contribute, and a discarded computation.
double cl_unused_param(const double *x) {
  double unused = x[2] * 100;
  (void)unused;
  return x[0] * x[1];
}
