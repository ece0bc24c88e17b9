// dim: 6
// A spring as a struct of two endpoints with a member energy, built by a
// function returning the struct.
struct Point {
  double x, y;
};
struct Spring {
  Point a, b;
  double rest;
  double length() const {
    double dx = b.x - a.x, dy = b.y - a.y;
    return sqrt(dx * dx + dy * dy);
  }
  double energy(double k) const {
    double d = length() - rest;
    return 0.5 * k * d * d;
  }
};
Spring makeSpring(const double *x, int i, int j) {
  Spring s;
  s.a = {x[2 * i], x[2 * i + 1]};
  s.b = {x[2 * j], x[2 * j + 1]};
  s.rest = 0.3;
  return s;
}
double spring_struct(const double *x) {
  double e = 0;
  for (int i = 0; i < 3; ++i)
    e += makeSpring(x, i, (i + 1) % 3).energy(2.0 + i);
  return e;
}
