// dim: 2
// point: 0.6 0.4
// An assignment in the branches of ?: chosen by a comparison.
double f_cond3(double x, double c) {
  double t;
  if (c > 0)
    t = x;
  else
    t = -x;
  return c > 0 ? t * t : t * c;
}
double clad_gr_cond_assign(const double *x) {
  return f_cond3(x[0], x[1]) + f_cond3(x[1], x[0] - 1.0);
}
