// dim: 4
// Side effects: a[n--] walking backwards, a Horner scheme.
double se_postdec_index(const double *x) {
  int n = 3;
  double r = 0;
  while (n >= 0)
    r = r * 0.7 + x[n--];
  return r * r;
}
