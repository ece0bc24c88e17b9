// dim: 3
// References: a reference local naming an element, updated twice.
double ref_local_alias(const double *x) {
  double a[3] = {x[0], x[1], x[2]};
  double &m = a[1];
  m *= a[0];
  m += a[2] * a[2];
  return a[0] + a[1] * a[2];
}
