// dim: 3
#include <cassert>
// assert in a helper function.
double safeDiv(double a, double b) {
  assert(b != 0);
  return a / b;
}
double ap_helper_assert(const double *x) {
  return safeDiv(x[0], x[1]) + safeDiv(x[1] * x[2], x[0] + 1);
}
