// dim: 2
#include <cassert>
// assert: a precondition that the derivative does not depend on.
double ap_assert(const double *x) {
  assert(x[0] > 0);
  double r = log(x[0]) * x[1];
  assert(r == r);
  return r;
}
