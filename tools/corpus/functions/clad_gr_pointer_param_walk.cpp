// dim: 3
// A pointer parameter advanced in a loop.
double pointerParam(const double *arr, int n) {
  double sum = 0;
  for (int i = 0; i < n; ++i) {
    sum += arr[0] * arr[0] * (i + 1);
    arr = arr + 1;
  }
  return sum;
}
double clad_gr_pointer_param_walk(const double *x) { return pointerParam(x, 3); }
