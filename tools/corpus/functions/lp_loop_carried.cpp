// dim: 2
// Loops: a loop-carried recurrence (logistic map).
double lp_loop_carried(const double *x) {
  double y = x[0];
  for (int i = 0; i < 8; ++i)
    y = x[1] * 3.0 * y * (1 - y);
  return y;
}
