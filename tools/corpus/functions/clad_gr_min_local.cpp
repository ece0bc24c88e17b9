// dim: 2
// point: 0.7 0.3
// The smaller parameter kept in a local.
double f1(double x, double y) {
  double t = x;
  if (x > y)
    t = y;
  return t * t + x;
}
double clad_gr_min_local(const double *x) { return f1(x[0], x[1]); }
