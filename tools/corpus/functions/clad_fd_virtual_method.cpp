// dim: 2
// A call of a virtual method on an object of known type.
class Base {
public:
  virtual double scale(double x) const { return 2 * x; }
  virtual ~Base() {}
};
class Derived final : public Base {
public:
  double scale(double x) const override { return x * x; }
};
double clad_fd_virtual_method(const double *x) {
  Derived d;
  return d.scale(x[0]) + x[1];
}
