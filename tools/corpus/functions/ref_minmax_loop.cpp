// dim: 4
// References: running minimum and maximum as out-parameters.
void range(const double *v, int n, double &lo, double &hi) {
  lo = v[0];
  hi = v[0];
  for (int i = 1; i < n; ++i) {
    lo = fmin(lo, v[i]);
    hi = fmax(hi, v[i]);
  }
}
double ref_minmax_loop(const double *x) {
  double lo, hi;
  range(x, 4, lo, hi);
  return hi * hi - lo;
}
