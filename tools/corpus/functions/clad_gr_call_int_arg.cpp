// dim: 2
// Calls with integer arguments that carry no derivative.
double powi(double x, int n) {
  double r = 1;
  for (int i = 0; i < n; ++i)
    r *= x;
  return r;
}
double clad_gr_call_int_arg(const double *x) { return powi(x[0], 3) + powi(x[1], 2) * x[0]; }
