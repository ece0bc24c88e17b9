// dim: 2
// Integer locals and casts mixed in.
double fn_int(double x, double y) {
  int k = 2;
  k = k * 3 + 1;
  double r = x * k;
  r += (int)y;
  return r * y;
}
double clad_gr_non_differentiable_int(const double *x) { return fn_int(x[0], x[1] + 2.5); }
