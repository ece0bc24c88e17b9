// dim: 1
// A recursive power function.
double pw(double x, int n) {
  if (n <= 0)
    return 1;
  return x * pw(x, n - 1);
}
double clad_gr_recursion(const double *x) { return pw(x[0], 4); }
