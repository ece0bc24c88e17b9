// dim: 2
// A function template instantiated for double.
template <typename T> T cube(T v) { return v * v * v; }
template <typename T> T blend(T a, T b, T t) { return a + t * (b - a); }
double cl_template(const double *x) {
  return cube(x[0]) + blend(x[0], x[1], 0.3) * cube<double>(x[1]);
}
