// dim: 2
// A loop computing x^n with n an integer parameter.
double fn_pow(double x, int n) {
  double r = 1;
  for (int i = 0; i < n; ++i)
    r = r * x;
  return r;
}
double clad_fw_loop_pow(const double *x) { return fn_pow(x[0], 5) * x[1]; }
