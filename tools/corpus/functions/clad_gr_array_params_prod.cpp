// dim: 3
// Products of array elements passed as pointers.
double prod(const double *a, int n) {
  double p = 1;
  for (int i = 0; i < n; ++i)
    p *= a[i];
  return p;
}
double clad_gr_array_params_prod(const double *x) { return prod(x, 3) + prod(x + 1, 2); }
