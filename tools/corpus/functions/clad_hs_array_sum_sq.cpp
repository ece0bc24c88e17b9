// dim: 4
// A sum of products of neighbouring array elements.
double f_arr(const double *a, int n) {
  double s = 0;
  for (int i = 0; i + 1 < n; ++i)
    s += a[i] * a[i] * a[i + 1];
  return s;
}
double clad_hs_array_sum_sq(const double *x) { return f_arr(x, 4); }
