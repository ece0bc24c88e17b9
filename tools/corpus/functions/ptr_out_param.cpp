// dim: 3
// Pointer arithmetic: an output written through a pointer parameter.
void normalize3(const double *v, double *out) {
  double n = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
  for (int i = 0; i < 3; ++i)
    out[i] = v[i] / n;
}
double ptr_out_param(const double *x) {
  double u[3];
  normalize3(x, u);
  return u[0] + 2 * u[1] + 3 * u[2];
}
