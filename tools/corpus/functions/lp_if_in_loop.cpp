// dim: 4
// Loops: a branch per iteration on a data-independent condition.
double lp_if_in_loop(const double *x) {
  double s = 0;
  for (int i = 0; i < 4; ++i) {
    if (i % 2)
      s += sin(x[i]);
    else
      s -= x[i] * s;
  }
  return s;
}
