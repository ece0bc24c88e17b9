// dim: 2
// A functor with a constant member.
struct Scaled {
  double k;
  double operator()(double v) const { return k * v * v; }
};
double st_functor(const double *x) {
  Scaled f{3.0};
  return f(x[0]) + f(x[1] - x[0]);
}
