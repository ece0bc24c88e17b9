// dim: 2
// Functions in nested namespaces calling each other.
namespace outer {
namespace inner {
double f(double x) { return x * x * x; }
} // namespace inner
double g(double x, double y) { return inner::f(x) * y; }
} // namespace outer
double clad_fd_namespace_nested(const double *x) { return outer::g(x[0], x[1]) + outer::inner::f(x[1]); }
