// dim: 3
// Side effects: an assignment inside an if condition.
double se_assign_in_cond(const double *x) {
  double t;
  double r = 0;
  if ((t = x[0] * x[1]) > 0.01)
    r = t * x[2];
  else
    r = -t;
  return r + t;
}
