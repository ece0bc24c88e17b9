// dim: 4
// References: array elements passed by reference to an update.
void relax(double &a, double b) { a = 0.5 * (a + b * b); }
double ref_array_elem_arg(const double *x) {
  double v[4] = {x[0], x[1], x[2], x[3]};
  for (int i = 0; i < 3; ++i)
    relax(v[i + 1], v[i]);
  return v[3];
}
