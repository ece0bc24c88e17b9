// dim: 2
// A recursive function (power by squaring).
double powi(double b, int n) {
  if (n == 0)
    return 1;
  double h = powi(b, n / 2);
  return n % 2 ? h * h * b : h * h;
}
double cl_recursion(const double *x) { return powi(x[0], 5) + powi(x[1], 2); }
