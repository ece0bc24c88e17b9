// dim: 6
// References into a local array updated in place.
double ref_locals(const double *x) {
  double a[3] = {x[0] * x[1], x[2], x[3] + x[4]};
  for (int i = 0; i < 3; ++i) {
    double &r = a[i];
    r = r * x[5] + sin(r);
  }
  double &last = a[2];
  last *= a[0];
  return a[0] + a[1] * a[2];
}
