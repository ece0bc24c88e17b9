// dim: 3
// Conditions with && and ||.
double cl_logical_ops(const double *x) {
  double r = x[0];
  if (x[0] > 0 && x[1] > 0)
    r *= x[1];
  if (x[2] < 0 || x[1] > 0.1)
    r += x[2] * x[2];
  return r;
}
