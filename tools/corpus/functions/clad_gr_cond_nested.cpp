// dim: 2
// point: 0.9 0.3
// Nested conditional operators picking a parameter.
double f_cond2(double x, double y) { return x > y ? x : (y > 0 ? y : -y); }
double clad_gr_cond_nested(const double *x) {
  return f_cond2(x[0], x[1]) * x[0] + f_cond2(x[1] - 1.0, x[0]);
}
