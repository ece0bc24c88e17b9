// dim: 5
// Total variation with a smoothed absolute value and an early exit.
double smooth_abs(const double *x) {
  double tv = 0;
  for (int i = 0; i + 1 < 5; ++i) {
    double d = x[i + 1] - x[i];
    tv += sqrt(d * d + 1e-2);
    if (tv > 1e6)
      return tv;
  }
  return tv;
}
