// dim: 2
// Results of calls used in further calls and arithmetic.
double helper(double x, double y) { return x * y + y; }
double f_calls(double x, double y) {
  double a = helper(x, y);
  double b = helper(a, x);
  return helper(b, a) / (1 + a * a);
}
double clad_fd_call_results(const double *x) { return f_calls(x[0], x[1]); }
