// dim: 2
// Helpers in a namespace.
namespace geo {
double area(double w, double h) { return w * h; }
double perimeter(double w, double h) { return 2 * (w + h); }
} // namespace geo
double cl_namespace(const double *x) {
  return geo::area(x[0], x[1]) / geo::perimeter(x[0], x[1]);
}
