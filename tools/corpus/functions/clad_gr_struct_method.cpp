// dim: 2
// A member function of a plain struct reading its members.
struct Experiment {
  double x, y;
  double operator_like(double i, double j) const { return x * i * i + y * j; }
};
double clad_gr_struct_method(const double *x) {
  Experiment E{3.0, 5.0};
  return E.operator_like(x[0], x[1]);
}
