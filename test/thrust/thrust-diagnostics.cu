// Thrust calls that meshad cannot differentiate correctly are errors at the
// call, never wrong gradients: other execution policies, user functors and
// lambdas outside the operation of transform and the unary one of
// transform_reduce (supported there: thrust-user-functors.cu), lambdas that capture a pointer
// or a variable the function changes, generic lambdas, functors whose
// members carry derivatives or are not numbers, thrust::for_each other than
// over counting iterators with a lambda (supported: thrust-for-each.cu), thrust::device_vector
// (locals, parameters, iterators: pass raw pointers), iterators other than
// raw pointers, primitives outside the recipe table, saves inside loops
// (a for_each's snapshots there: thrust-for-each-loops.cu; its HVPs are
// errors),
// Hessian-vector products through a for_each that captures the caller's
// buffers (the pushforward of the lambda's pullback reads their
// gradient's adjoints, which an HVP drops; buffers the function allocates
// work: thrust-hvp-user-functors.cu), the iterator a copy
// returns used in reverse mode, a non-constant init of a reduce with
// maximum, a scatter into a buffer the reverse sweep still reads (other
// outputs are saved and restored: thrust-reductions-scans.cu).
//
// REQUIRES: thrust
// RUN: %clangxx %cpu_thrust_flags -fsyntax-only -ferror-limit=0 -fplugin=%meshad_plugin %s -Xclang -verify
#include <thrust/copy.h>
#include <thrust/device_vector.h>
#include <thrust/for_each.h>
#include <thrust/execution_policy.h>
#include <thrust/functional.h>
#include <thrust/gather.h>
#include <thrust/reduce.h>
#include <thrust/scan.h>
#include <thrust/scatter.h>
#include <thrust/transform.h>
#include <thrust/transform_reduce.h>

#include <meshad/Differentiator.h>

struct Scale {
  double s;
  __host__ __device__ double operator()(double v) const { return s * v; }
};

double hostPolicy(const double *x, int n) {
  return thrust::reduce(thrust::host, x, x + n, 0.0); // expected-error {{thrust::reduce needs the execution policy thrust::device in a derivative}}
}

struct Mix {
  __host__ __device__ double operator()(double u, double v) const {
    return u * v;
  }
};

double userReduction(const double *x, int n) {
  return thrust::reduce(thrust::device, x, x + n, 1.0, Mix{}); // expected-error {{thrust::reduce with a user functor or lambda there is not supported in derivatives; user functors and lambdas are supported as the operation of thrust::transform and the unary one of transform_reduce}}
}

double capturesPointer(const double *x, const double *w, int n) {
  return thrust::transform_reduce(thrust::device, x, x + n, [=](double v) { return w[0] * v; }, 0.0, thrust::plus<double>()); // expected-error {{the lambda passed to thrust::transform_reduce captures 'w'; in a derivative it may capture numbers only}}
}

double capturesChanged(const double *x, int n, double a) {
  double s = thrust::transform_reduce(thrust::device, x, x + n, [=](double v) { return a * v; }, 0.0, thrust::plus<double>()); // expected-error {{the lambda passed to thrust::transform_reduce captures 'a', which the function changes; copy the value into a const local and capture that}}
  a = 2 * a;
  return s * a;
}

double genericLambda(const double *x, int n) {
  return thrust::transform_reduce(thrust::device, x, x + n, [](auto v) { return v * v; }, 0.0, thrust::plus<double>()); // expected-error {{the functor passed to thrust::transform_reduce needs exactly one operator(), not a template}}
}

double activeMembers(const double *x, int n, double c) {
  return thrust::transform_reduce(thrust::device, x, x + n, Scale{c}, 0.0, thrust::plus<double>()); // expected-error {{cannot differentiate the call of the functor 'Scale': its members carry derivatives}}
}

struct Weights {
  const double *w;
  __host__ __device__ double operator()(double v) const { return w[0] * v; }
};

double pointerMember(const double *x, const double *w, int n) {
  return thrust::transform_reduce(thrust::device, x, x + n, Weights{w}, 0.0, thrust::plus<double>()); // expected-error {{the functor passed to thrust::transform_reduce has the member 'w'; in a derivative its members may be numbers only}}
}

struct Store {
  double *y;
  __host__ __device__ void operator()(double v) const { *y = v; }
};

void forEach(double *x, int n) {
  thrust::for_each(thrust::device, x, x + n, Store{x}); // expected-error {{thrust::for_each in a derivative iterates over counting iterators with a lambda that captures the pointers it reads and writes}}
}

struct StoreAt {
  double *y;
  __host__ __device__ void operator()(int i) const { y[i] = 2 * y[i]; }
};

void forEachFunctor(double *x, int n) {
  thrust::for_each(thrust::device, thrust::counting_iterator<int>(0), thrust::counting_iterator<int>(n), StoreAt{x}); // expected-error {{the functor passed to thrust::for_each in a derivative must be a lambda that captures the pointers it reads and writes}}
}

void forEachKnownFunctor(double *x, int n) {
  thrust::for_each(thrust::device, x, x + n, thrust::negate<double>()); // expected-error {{thrust::for_each in a derivative takes counting iterators and a lambda that captures the pointers it reads and writes}}
}

void forEachValue(double *x, int n) {
  thrust::for_each(thrust::device, thrust::counting_iterator<int>(0), thrust::counting_iterator<int>(n), [=](double v) { x[0] = v; }); // expected-error {{the lambda passed to thrust::for_each over counting iterators must take the index alone (int i)}}
}

double hvpForEachInLoop(const double *xHost, int n) {
  double *xBuf;
  cudaMalloc(&xBuf, n * sizeof(double));
  cudaMemcpy(xBuf, xHost, n * sizeof(double), cudaMemcpyHostToDevice);
  double *const x = xBuf;
  for (int k = 0; k < 2; ++k)
    thrust::for_each(thrust::device, thrust::make_counting_iterator(0), thrust::make_counting_iterator(n), [=](int i) { x[i] = x[i] * x[i]; }); // expected-error {{Hessian-vector products through a thrust::for_each inside a loop are not supported yet (gradients are; outside loops, HVPs are too)}}
  double e = thrust::reduce(thrust::device, x, x + n, 0.0);
  cudaFree(xBuf);
  return e;
}

double hvpForEach(const double *x, double *y, int n) {
  thrust::for_each(thrust::device, thrust::make_counting_iterator(0), thrust::make_counting_iterator(n), [=](int i) { y[i] = x[i] * x[i]; }); // expected-error {{meshad::hvp: the gradient w.r.t. 'x' is read back or aliased here; Hessian-vector products need a gradient that is only accumulated}}
  return thrust::reduce(thrust::device, y, y + n, 0.0);
}

double forEachWithValue(const double *x, double *y, int n) {
  thrust::for_each(thrust::device, thrust::make_counting_iterator(0), thrust::make_counting_iterator(n), [=](int i) { y[i] = x[i] * x[i]; }); // expected-error {{meshad::WithValue: thrust::for_each writes through 'y', whose allocation the reverse sweep puts back as the call found it, so it would not hold the primal's result afterwards; request the gradient without meshad::WithValue}}
  return thrust::reduce(thrust::device, y, y + n, 0.0);
}

void forEachPointerToPointer(double **rows, int n) {
  thrust::for_each(thrust::device, thrust::make_counting_iterator(0), thrust::make_counting_iterator(n), [=](int i) { rows[i][0] = 2 * rows[i][0]; }); // expected-error {{the lambda passed to thrust::for_each captures 'rows', a pointer to pointers; capture the arrays themselves}}
}

double devicePtr(thrust::device_ptr<double> first,
                 thrust::device_ptr<double> last, double c) {
  return thrust::reduce(thrust::device, first, last, c); // expected-error {{thrust::reduce in a derivative needs raw device pointers for its ranges}}
}

double devicePtrMade(double *x, int n) {
  thrust::device_ptr<double> p(x); // expected-error {{constructor call of 'thrust::device_ptr<double>' is not supported}}
  return thrust::reduce(thrust::device, p, p + n, 0.0); // expected-error {{thrust::reduce in a derivative needs raw device pointers}}
}

double vectorLocal(const double *x, int n) {
  thrust::device_vector<double> v(x, x + n); // expected-error {{thrust::device_vector in a function to differentiate is not supported yet; keep the vector in the caller and pass its raw device pointer (thrust::raw_pointer_cast(v.data())) and its size}}
  return thrust::reduce(thrust::device, v.begin(), v.end(), 0.0); // expected-error {{thrust::device_vector in a function to differentiate is not supported yet}}
}

double vectorParam(const thrust::device_vector<double> &v) {
  return thrust::reduce(thrust::device, v.begin(), v.end(), 0.0); // expected-error {{thrust::device_vector in a function to differentiate is not supported yet}}
}

double vectorData(thrust::device_vector<double> &v, int n) { // expected-error {{thrust::device_vector in a function to differentiate is not supported yet}}
  const double *p = thrust::raw_pointer_cast(v.data());
  return thrust::reduce(thrust::device, p, p + n, 0.0);
}

double maxReduce(const double *x, int n, double c) {
  return thrust::reduce(thrust::device, x, x + n, c, thrust::maximum<double>()); // expected-error {{the initial value of thrust::reduce with thrust::maximum or minimum must be a constant in a derivative (a literal)}}
}

double plusReduce5(const double *x, int n) {
  return thrust::reduce(thrust::device, x, x + n, 0.0, thrust::multiplies<double>()); // expected-error {{thrust::reduce in a derivative reduces with thrust::plus, maximum or minimum only}}
}

double gatherInLoop(const int *map, const double *x, double *y, int n) {
  double s = 0;
  for (int k = 0; k < 2; ++k) {
    thrust::gather(thrust::device, map, map + n, x, y); // expected-error {{thrust::gather inside a loop is not supported in reverse mode yet}}
    s += thrust::reduce(thrust::device, y, y + n, 0.0);
  }
  return s;
}

double sumOf(const double *y, int n) {
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += y[i] * y[i];
  return s;
}

double overwritesRead(const double *x, const int *map, double *y, int n) {
  thrust::copy(thrust::device, x, x + n, y);
  double s = sumOf(y, n);
  thrust::scatter(thrust::device, x, x + n, map, y); // expected-error {{thrust::scatter overwrites 'y', whose contents the reverse sweep reads; scatter into another buffer}}
  return s + sumOf(y, n);
}

double copyEnd(const double *x, double *y, int n) {
  double *end = thrust::copy(thrust::device, x, x + n, y); // expected-error {{thrust::copy: the iterator it returns is used; call it as a statement in code to differentiate}}
  return thrust::reduce(thrust::device, y, end, 0.0);
}

int main() {
  meshad::gradient(hostPolicy, "x");
  meshad::gradient(userReduction, "x");
  meshad::gradient(capturesPointer, "x");
  meshad::gradient(capturesChanged, "x, a");
  meshad::gradient(genericLambda, "x");
  meshad::gradient(activeMembers, "x, c");
  meshad::gradient(pointerMember, "x");
  meshad::gradient(forEach, "x");
  meshad::gradient(forEachFunctor, "x");
  meshad::gradient(forEachKnownFunctor, "x");
  meshad::gradient(forEachValue, "x");
  meshad::hvp(hvpForEachInLoop, "xHost");
  meshad::differentiate(forEachPointerToPointer, "rows");
  meshad::hvp(hvpForEach, "x, y");
  meshad::gradient(forEachWithValue, "x, y", meshad::WithValue);
  meshad::gradient(devicePtr, "c");
  meshad::gradient(devicePtrMade, "x");
  meshad::gradient(vectorLocal, "x");
  meshad::gradient(vectorParam, "v");
  meshad::gradient(vectorData, "v");
  meshad::gradient(maxReduce, "x");
  meshad::gradient(plusReduce5, "x");
  meshad::gradient(gatherInLoop, "x, y");
  meshad::gradient(overwritesRead, "x, y");
  meshad::gradient(copyEnd, "x, y");
  return 0;
}
