// dim: 6
// A mixture of Gaussians evaluated at three points.
double gauss_density(const double *x) {
  double s = 0;
  for (int i = 0; i < 3; ++i) {
    double r2 = x[2 * i] * x[2 * i] + x[2 * i + 1] * x[2 * i + 1];
    s += exp(-0.5 * r2) + 0.5 * exp(-2.0 * (r2 - 1.0) * (r2 - 1.0));
  }
  return -log(s);
}
