// dim: 2
// A virtual member function (dynamic dispatch).
struct Shape {
  virtual double area(double s) const { return s * s; }
};
double st_virtual(const double *x) {
  Shape s;
  return s.area(x[0]) * x[1];
}
