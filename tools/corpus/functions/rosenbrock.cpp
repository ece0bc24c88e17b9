// dim: 6
// The extended Rosenbrock function.
double rosenbrock(const double *x) {
  double f = 0;
  for (int i = 0; i < 5; ++i) {
    double a = x[i + 1] - x[i] * x[i], b = 1.0 - x[i];
    f += 100.0 * a * a + b * b;
  }
  return f;
}
