// dim: 4
// Side effects: the value of a pre-increment used as an index.
double se_preinc_value(const double *x) {
  int i = -1;
  double s = 0;
  while (i < 2) {
    double v = x[++i];
    s += v * x[3 - i];
  }
  return s;
}
