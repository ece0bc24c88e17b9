// dim: 2
// A local array from a brace list of expressions.
double clad_gr_array_init_list(const double *x) {
  double arr[3] = {x[0], x[0] * x[1], 2 * x[1]};
  return arr[0] * arr[1] + arr[2] * arr[2];
}
