// dim: 3
// Member functions: one method calling another on *this.
struct Poly {
  double a, b, c;
  double eval(double t) const { return (a * t + b) * t + c; }
  double slope(double t) const { return 2 * a * t + b; }
  double newton(double t) const { return t - eval(t) / slope(t); }
};
double st_method_chain(const double *x) {
  Poly p{1.0 + x[0], x[1], -x[2]};
  return p.newton(1.0 + x[2]);
}
