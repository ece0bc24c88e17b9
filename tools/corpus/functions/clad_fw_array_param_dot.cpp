// dim: 4
// A dot product of two halves of an array.
double dot(const double *a, const double *b, int n) {
  double r = 0;
  for (int i = 0; i < n; ++i)
    r += a[i] * b[i];
  return r;
}
double clad_fw_array_param_dot(const double *x) { return dot(x, x + 2, 2) * dot(x, x, 4); }
