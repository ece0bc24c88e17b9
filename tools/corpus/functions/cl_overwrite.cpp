// dim: 2
// A variable overwritten many times (the tape).
double cl_overwrite(const double *x) {
  double y = x[0];
  y = sin(y) * x[1];
  y = y * y + x[0];
  y = exp(-y);
  return y;
}
