// dim: 4
// Side effects: a[i++] walking the input, a running product.
double se_postinc_index(const double *x) {
  int i = 0;
  double p = 1.0, s = 0.0;
  while (i < 4) {
    p *= 1.0 + x[i++];
    s += p;
  }
  return s;
}
