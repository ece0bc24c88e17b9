// dim: 4
// Out-parameters by reference: min/max and sums.
void minmax(double a, double b, double &lo, double &hi) {
  lo = a < b ? a : b;
  hi = a < b ? b : a;
}
void stats(const double *v, int n, double &mean, double &var) {
  mean = 0;
  for (int i = 0; i < n; ++i)
    mean += v[i] / n;
  var = 0;
  for (int i = 0; i < n; ++i)
    var += (v[i] - mean) * (v[i] - mean) / n;
}
double ref_outputs(const double *x) {
  double lo, hi, m, s;
  minmax(x[0], x[1], lo, hi);
  stats(x, 4, m, s);
  return hi - lo + m * s;
}
