// meshad::hessian requests that cannot be served are errors at the
// request, never a wrong Hessian: a non-scalar function, a spec whose size
// cannot be known, integer parameters, a range outside a fixed-size array,
// a parameter selected twice, a range of a kernel's array (under the CPU
// emulation, for __global__; the element kernels' own errors are in
// hessian-element-diagnostics.cu), a selected array passed to a callee
// that cannot be inlined (no definition: an error of the gradient it
// derives from first; a return before its end; others
// are inlined: hessian-callee-arrays.cpp), a pointer into a selected array
// set to other memory (one that moves within it is supported:
// hessian-moving-pointers.cpp), and a helper that updates a large local
// array through a pointer (scalars, vectors and small arrays are:
// hessian-helper-updates.cpp).
//
// RUN: %clangxx %cpu_cuda_flags -fsyntax-only -fplugin=%meshad_plugin %s -Xclang -verify
#include <meshad/Differentiator.h>
#include <cmath>

void scale(const double *x, double *y, int n) {
  for (int i = 0; i < n; ++i)
    y[i] = x[i] * x[i];
}
int count(const double *x, int n) { return n + (x[0] > 0); }
double energy(const double *x, int n, double w) {
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += w * x[i] * x[i];
  return s;
}
double external(const double *p);
double viaExternal(const double *x) {
  return sin(external(x)) * x[2]; // expected-error {{cannot differentiate the call of 'external' in reverse mode: it has no derivative rule and no visible definition}}
}
double early(const double *p) {
  if (p[0] > 0)
    return p[0] * p[1];
  return p[1];
}
double viaEarly(const double *x) {
  return early(x + 1) * x[0]; // expected-error {{meshad::hessian: the selected array is passed to 'early', which returns before its end; the Hessian mode inlines such callees and needs one return, at the end}}
}
double fixed(const double (&x)[3]) { return x[0] * x[1] * x[2]; }
// A helper that updates a large local array: its pushforward would run
// once per lane, updating the array each time, and only scalars and local
// arrays of at most 64 values are copied per lane
// (hessian-helper-updates.cpp).
void relax(double *acc, double s) { acc[0] += 0.25 * sin(s) - 0.25 * acc[1]; }
double viaLarge(double a, double s) {
  double q[100];
  q[0] = s;
  q[1] = a;
  relax(q, 0.8 * s);
  return a * erf(q[0]);
}
// A pointer into the selected array set to other memory.
double moving(const double *x, const double *y) {
  const double *p = x;
  double s = p[0] * p[0] * p[1];
  p = y; // expected-error {{meshad::hessian: the pointer 'p' into the selected array 'x' is set to other memory; use a pointer of its own}}
  return s + p[0];
}
__global__ void kernel(const double *x, double *E) {
  atomicAdd(E, x[threadIdx.x] * x[threadIdx.x]);
}

int main() {
  auto a = meshad::hessian(scale, "x[0:2]"); // expected-error {{meshad::hessian needs a scalar function: 'scale' returns void}}
  auto b = meshad::hessian(count, "x[0:2]"); // expected-error {{meshad::hessian needs a scalar function: 'count' returns int}}
  auto c = meshad::hessian(energy, "x"); // expected-error {{the size of 'x' cannot be known (a pointer); select a range of it, "x[0:n]"}}
  auto d = meshad::hessian(energy, "x[0:2], n"); // expected-error {{parameter 'n' has type int, which carries no derivative}}
  auto e = meshad::hessian(energy, "x[0:2], x[3:4]"); // expected-error {{parameter 'x' is named twice}}
  auto f = meshad::hessian(energy, "w[0:2]"); // expected-error {{parameter 'w' is not an array; remove the [...]}}
  auto g = meshad::hessian(energy, "z"); // expected-error {{'energy' has no parameter named 'z'}}
  auto h = meshad::hessian(energy, "x[0:2"); // expected-error {{invalid argument spec}}
  auto i = meshad::hessian(fixed, "x[1:4]"); // expected-error {{the range [1:4] is outside 'x', which has 3 elements}}
  auto k = meshad::hessian(viaExternal, "x[0:3]");
  auto k2 = meshad::hessian(viaEarly, "x[0:3]");
  auto l = meshad::hessian(viaLarge, "a, s"); // expected-error {{meshad::hessian of 'viaLarge_hessian': a call that computes tangents also updates 'q', and would run once per selected input; a function that updates memory other than a local scalar, vector or array of at most 64 values is not supported here yet (return the value instead)}}
  auto m = meshad::hessian(moving, "x[0:3]");
  auto j = meshad::hessian(kernel, "x[0:2]"); // expected-error {{meshad::hessian of the kernel 'kernel' takes one whole array parameter, the DOFs its elements read ("x")}}
}
