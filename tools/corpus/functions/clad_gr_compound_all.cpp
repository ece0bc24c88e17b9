// dim: 2
// Compound assignments of every kind to a local.
double f8(double x, double y) {
  double t = 0;
  t += x;
  t -= y;
  t *= x;
  t /= y;
  t += t * x;
  return t;
}
double clad_gr_compound_all(const double *x) { return f8(x[0], x[1]); }
