// dim: 2
// Early returns in branches.
double cl_early_return(const double *x) {
  if (x[0] > 2.0)
    return x[0];
  double y = x[0] * x[1];
  if (y < -1.0)
    return -y;
  return y * y;
}
