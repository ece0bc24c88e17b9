// dim: 3
// Side effects: an index incremented inside a call's argument list.
double sq(double v) { return v * v; }
double se_increment_in_call(const double *x) {
  int k = 0;
  double s = sq(x[k++]);
  s += sq(x[k++]) * 2;
  s += sq(x[k]) * 3;
  return s;
}
