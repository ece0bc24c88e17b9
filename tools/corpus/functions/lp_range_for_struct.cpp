// dim: 3
// Loops: a range-based for by reference modifying a local array.
double lp_range_for_struct(const double *x) {
  double a[3] = {x[0], x[1], x[2]};
  for (double &v : a)
    v = v * v + 1;
  double s = 0;
  for (double v : a)
    s += log(v);
  return s;
}
