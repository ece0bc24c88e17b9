// dim: 2
// A callee writing its result through a pointer.
void square_into(double x, double *out) { *out = x * x; }
double clad_gr_call_out_param(const double *x) {
  double a, b;
  square_into(x[0], &a);
  square_into(x[1] * a, &b);
  return a + b;
}
