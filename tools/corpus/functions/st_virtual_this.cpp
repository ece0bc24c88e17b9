// dim: 2
// A member function of a base calling a virtual function on this (the
// template method pattern), on a local object of a class that is not final.
struct Element {
  virtual double stiffness(double a) const { return a; }
  double energy(double a, double b) const { return stiffness(a) * b * b; }
  virtual ~Element() {}
};
struct Spring : Element {
  double stiffness(double a) const override { return a * a + 1; }
};
double st_virtual_this(const double *x) {
  Spring s;
  return s.energy(x[0], x[1]);
}
