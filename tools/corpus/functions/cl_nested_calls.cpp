// dim: 2
// Nested calls of small helpers.
double f1(double a) { return a * a + 1; }
double f2(double a, double b) { return f1(a) * b - f1(b); }
double cl_nested_calls(const double *x) {
  return f2(f1(x[0]), x[1]) + f1(f2(x[1], x[0]));
}
