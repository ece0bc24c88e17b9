// dim: 2
// Loops with return: a series summed until its term is small.
double lr_series(const double *x) {
  double s = 0, t = 1;
  for (int k = 1; k < 50; ++k) {
    t *= x[0] / k;
    s += t;
    if (k == 12)
      return s * x[1];
  }
  return s;
}
