// dim: 2
// A lambda capturing a derivative-carrying local by reference.
double st_lambda_capture(const double *x) {
  double a = x[0] * x[1];
  auto f = [&](double v) { return a * v + v * v; };
  return f(x[0]) + f(x[1]);
}
