// dim: 3
// Side effects: the value of an assignment used in an expression.
double se_assign_value(const double *x) {
  double u, v;
  double w = (u = x[0] * x[1]) + (v = sin(x[2]));
  return w * u - v;
}
