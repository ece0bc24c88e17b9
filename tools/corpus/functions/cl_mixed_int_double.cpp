// dim: 2
// Integer arithmetic mixed into floating-point expressions.
double cl_mixed_int_double(const double *x) {
  int n = 7, m = 3;
  return x[0] * (n / m) + x[1] * (n % m) + (double)n / m * x[0] * x[1];
}
