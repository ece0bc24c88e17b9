// dim: 2
#include <cassert>
// printf: a debugging print in the middle of the computation.
double ap_printf(const double *x) {
  double y = x[0] * x[1];
  if (y > 10.0)
    printf("large product %g\n", y);
  return y * y + x[1];
}
