// meshad::hessian(f, "x", meshad::Sparse) on what it cannot serve: errors
// at the construct, never a wrong Hessian. An index that is not affine in
// the counter and index array values (a square, a quotient, a gather
// through a gathered position, an index array the function writes, a
// product of a nest's two counters, an inner loop counting down), a loop-carried nonlinear dependence (a product
// accumulated across iterations, the accumulator read in the loop, a local
// carried from one iteration to the next, memory the loop writes), x read
// outside the loops, a declaration between the loops reading an
// accumulator, a return that is not a sum of accumulators, a jump out of a
// loop; and bad requests: a range, an integer parameter, arrays of two
// element types or one array twice, device code. meshad::SparseDevice: a
// nest, bounds that read memory, a function that is not __host__
// __device__.
//
// RUN: %clangxx %cpu_cuda_flags -fsyntax-only -ferror-limit=0 -fplugin=%meshad_plugin %s -Xclang -verify
#include <meshad/Differentiator.h>
#include <cmath>

double square(const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += x[i * i] * x[i]; // expected-error {{meshad::hessian(square, "x", meshad::Sparse): a load of 'x' whose index is not S * i + c or an index array's value (3 * e[2 * i] + c; S, c literals or integer parameters, `i * m + j` in a nest of two loops; index arrays that 'square' never writes)}}
  return s;
}
double gather(const double *x, const int *idx, int n) {
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += x[idx[idx[i]]] * x[i]; // expected-error {{a load of 'x' whose index is not S * i + c or an index array's value}}
  return s;
}
double written(const double *x, int *idx, int n) {
  double s = 0;
  for (int i = 0; i < n; ++i) {
    s += x[idx[i]] * x[i];
    idx[i] = 0; // expected-error {{the loop writes 'idx', which later iterations may read}}
  }
  return s;
}
double scaled(const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += x[i] * x[i / 2]; // expected-error {{a load of 'x' whose index is not S * i + c or an index array's value}}
  return s;
}
double product(const double *x, int n) {
  double p = 1;
  for (int i = 0; i < n; ++i)
    p *= x[i]; // expected-error {{'p' is updated other than by `p += term`: a loop-carried nonlinear dependence}}
  return p;
}
double feedback(const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += s * x[i]; // expected-error {{'s' is updated other than by `s += term`: a loop-carried nonlinear dependence}}
  return s;
}
double readsAcc(const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; ++i) { // expected-error {{'s' is read inside the loop: its value carries from one iteration to the next (a loop-carried dependence)}}
    double t = s;
    s += t * x[i];
  }
  return s;
}
double carried(const double *x, int n) {
  double s = 0, prev = 0;
  for (int i = 0; i < n; ++i) { // expected-error {{'prev', declared before the loop, is used in it}}
    s += prev * x[i];
    prev = x[i];
  }
  return s;
}
double scratch(const double *x, double *tmp, int n) {
  double s = 0;
  for (int i = 1; i < n; ++i) {
    tmp[i] = x[i] * x[i]; // expected-error {{the loop writes 'tmp', which later iterations may read (a loop-carried dependence)}}
    s += tmp[i - 1] * x[i];
  }
  return s;
}
double outside(const double *x, int n) {
  double s = x[0]; // expected-error {{'x' is read outside the loops}}
  for (int i = 0; i < n; ++i)
    s += x[i] * x[i];
  return s;
}
double early(const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; ++i) { // expected-error {{a break or continue of the loop: every iteration must add its term}}
    if (x[i] > 1)
      break;
    s += x[i] * x[i];
  }
  return s;
}
double down(const double *x, int n) {
  double s = 0;
  for (int i = n - 1; i >= 0; --i) // expected-error {{expected the loop `for (int i = lo; i < hi; ++i)`}}
    s += x[i] * x[i];
  return s;
}
double between(const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += x[i] * x[i];
  double t = s; // expected-error {{'t' reads the accumulator 's' between the loops}}
  for (int i = 0; i < n; ++i)
    s += t * x[i];
  return s;
}
double product2(const double *x, int n) { // expected-error {{expected declarations and `for` loops that add terms into locals, then `return` of those locals (or of their sum)}}
  double a = 0, b = 0;
  for (int i = 0; i < n; ++i)
    a += x[i];
  for (int i = 0; i < n; ++i)
    b += x[i];
  return a * b;
}
double stmtBetween(const double *x, int n) { // expected-error {{expected declarations and `for` loops}}
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += x[i] * x[i];
  s *= 2;
  return s;
}
double passed(const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; ++i) // expected-error {{the loop uses 'x' other than in loads x[S * i + c] (a call or an address)}}
    s += square(x, i);
  return s;
}
double chain(const double *x, int n) {
  double s = 0;
  for (int i = 1; i < n; ++i)
    s += (x[i - 1] - x[i]) * (x[i - 1] - x[i]);
  return s;
}
double nestProduct(const double *x, int n, int m) {
  double s = 0;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < m; ++j)
      s += x[i * j] * x[j]; // expected-error {{a load of 'x' whose index is not S * i + c or an index array's value}}
  return s;
}
double nestDown(const double *x, int n, int m) {
  double s = 0;
  for (int i = 0; i < n; ++i)
    for (int j = m - 1; j >= 0; --j) // expected-error {{expected the loop `for (int i = lo; i < hi; ++i)`}}
      s += x[i * m + j] * x[i * m + j];
  return s;
}
double twoTypes(const double *x, const float *w, int n) {
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += x[i] * x[i] * w[i] * w[i];
  return s;
}
__device__ double onDevice(const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += x[i] * x[i];
  return s;
}
// meshad::SparseDevice: one thread per iteration of a single loop, the
// bounds computed by the host driver.
__host__ __device__ double gridNest(const double *x, int n, int m) {
  double s = 0;
  for (int i = 0; i < n; ++i) // expected-error {{meshad::hessian(gridNest, "x", meshad::SparseDevice): the nest over 'i' and 'j' does not run as a kernel yet (one thread per iteration of a single loop); use meshad::Sparse on the host}}
    for (int j = 0; j < m; ++j)
      s += x[i * m + j] * x[i * m + j] * x[i * m + j];
  return s;
}
__host__ __device__ double countRead(const double *x, const int *count) {
  int m = count[0];
  double s = 0;
  for (int i = 0; i < m; ++i) // expected-error {{the bounds of the loop over 'i' read memory or call a function; the host driver computes them before launching the kernel (pass them as parameters)}}
    s += x[i] * x[i] * x[i];
  return s;
}

int main() {
  auto a = meshad::hessian(square, "x", meshad::Sparse);
  auto b = meshad::hessian(gather, "x", meshad::Sparse);
  auto c = meshad::hessian(scaled, "x", meshad::Sparse);
  auto c2 = meshad::hessian(written, "x", meshad::Sparse);
  auto d = meshad::hessian(product, "x", meshad::Sparse);
  auto e = meshad::hessian(feedback, "x", meshad::Sparse);
  auto f = meshad::hessian(readsAcc, "x", meshad::Sparse);
  auto g = meshad::hessian(carried, "x", meshad::Sparse);
  auto h = meshad::hessian(scratch, "x", meshad::Sparse);
  auto i = meshad::hessian(outside, "x", meshad::Sparse);
  auto j = meshad::hessian(early, "x", meshad::Sparse);
  auto k = meshad::hessian(down, "x", meshad::Sparse);
  auto l = meshad::hessian(between, "x", meshad::Sparse);
  auto l2 = meshad::hessian(product2, "x", meshad::Sparse);
  auto l3 = meshad::hessian(stmtBetween, "x", meshad::Sparse);
  auto m = meshad::hessian(passed, "x", meshad::Sparse);
  auto n = meshad::hessian(chain, "x[0:4]", meshad::Sparse); // expected-error {{meshad::hessian(chain, "x[0:4]", meshad::Sparse): select whole array parameters ("x" or "x, v"): the loops' ranges give their sizes}}
  auto o = meshad::hessian(chain, "n", meshad::Sparse); // expected-error {{parameter 'n' has type int; select pointers to floating-point values of one type, each once}}
  auto q = meshad::hessian(nestProduct, "x", meshad::Sparse);
  auto r = meshad::hessian(nestDown, "x", meshad::Sparse);
  auto t = meshad::hessian(twoTypes, "x, w", meshad::Sparse); // expected-error {{parameter 'w' has type const float *; select pointers to floating-point values of one type, each once}}
  auto u = meshad::hessian(chain, "x, x", meshad::Sparse); // expected-error {{invalid argument spec "x, x": parameter 'x' is named twice}}
  auto p = meshad::hessian(onDevice, "x", meshad::Sparse); // expected-error {{'onDevice' is device code; the sparse Hessian of a loop is built on the host}}
  auto v = meshad::hessian(gridNest, "x", meshad::SparseDevice);
  auto w = meshad::hessian(countRead, "x", meshad::SparseDevice);
  auto y = meshad::hessian(chain, "x", meshad::SparseDevice); // expected-error {{meshad::hessian(chain, "x", meshad::SparseDevice): 'chain' is not __host__ __device__; its loops' terms run in the generated kernels}}
  return 0;
}
