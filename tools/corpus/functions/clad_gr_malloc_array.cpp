// dim: 3
// A malloc buffer sized by a constant.
double cStyleMemoryAlloc(double x, double y, double z) {
  double *arr = (double *)malloc(3 * sizeof(double));
  arr[0] = x;
  arr[1] = x * y;
  arr[2] = z * arr[1];
  double r = arr[0] + arr[2];
  free(arr);
  return r;
}
double clad_gr_malloc_array(const double *x) { return cStyleMemoryAlloc(x[0], x[1], x[2]); }
