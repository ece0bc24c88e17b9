// dim: 4
// A weighted sum with two array parameters.
double weighted_sum(const double *x, const double *w) {
  return w[0] * x[0] + w[1] * x[1];
}
double clad_gr_weighted_sum(const double *x) {
  return weighted_sum(x, x + 2) * weighted_sum(x + 2, x);
}
