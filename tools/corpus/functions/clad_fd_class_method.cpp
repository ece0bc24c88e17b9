// dim: 2
// A class with a constructor-initialised member and a method.
class A {
public:
  double m;
  double mul(double x) const { return m * x * x; }
};
double clad_fd_class_method(const double *x) {
  A a{x[1]};
  return a.mul(x[0]);
}
