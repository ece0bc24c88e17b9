// dim: 3
#include <cassert>
// assert and printf in a loop.
double ap_both_loop(const double *x) {
  double s = 0;
  for (int i = 0; i < 3; ++i) {
    assert(i < 3);
    s += x[i] / (1 + s);
    if (s < -1e9)
      printf("diverged at %d\n", i);
  }
  return s;
}
