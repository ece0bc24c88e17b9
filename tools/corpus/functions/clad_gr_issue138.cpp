// dim: 2
// Powers of a parameter through locals (a regression of the other tool).
double f_issue138(double x, double y) {
  double x1 = x * x;
  double x2 = x1 * x;
  double x3 = x2 * x1;
  return x3 * y + x1;
}
double clad_gr_issue138(const double *x) { return f_issue138(x[0], x[1]); }
