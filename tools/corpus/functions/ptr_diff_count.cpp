// dim: 5
// Pointers: the distance between two pointers as a count.
double ptr_diff_count(const double *x) {
  const double *b = x, *e = x + 5;
  int n = e - b;
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += b[i] / n;
  return s * s;
}
