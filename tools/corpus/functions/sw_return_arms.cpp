// dim: 2
// switch: every arm returns.
double shape(int k, double a, double b) {
  switch (k) {
  case 0:
    return a * b;
  case 1:
    return a / b;
  default:
    return a - b;
  }
}
double sw_return_arms(const double *x) {
  return shape(0, x[0], x[1]) + shape(1, x[0], x[1]) + shape(2, x[1], x[0]);
}
