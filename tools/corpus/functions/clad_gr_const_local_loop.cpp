// dim: 1
// A const local declared in each iteration.
double f_const_local(double x) {
  double res = 0;
  for (int i = 0; i < 3; ++i) {
    const double n = x + i;
    res += x * n;
  }
  return res;
}
double clad_gr_const_local_loop(const double *x) { return f_const_local(x[0]); }
