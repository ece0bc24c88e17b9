// dim: 2
// A function template instantiated for double.
template <typename T> T multiply(T a, T b) { return a * b; }
template <typename T> T add3(T a, T b, T c) { return a + b + c; }
double clad_gr_template(const double *x) {
  return add3(multiply(x[0], x[1]), x[0], multiply<double>(x[1], x[1]));
}
