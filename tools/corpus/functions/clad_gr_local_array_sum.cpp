// dim: 3
// A local array filled in a loop and summed.
double clad_gr_local_array_sum(const double *x) {
  double arr[3];
  for (int i = 0; i < 3; i++)
    arr[i] = x[i] * x[(i + 1) % 3];
  double s = 0;
  for (int i = 0; i < 3; i++)
    s += arr[i];
  return s;
}
