// dim: 4
// Member operators: a 2D vector class.
struct Vec2 {
  double x, y;
  Vec2 operator+(const Vec2 &o) const { return {x + o.x, y + o.y}; }
  Vec2 operator*(double s) const { return {x * s, y * s}; }
  double operator*(const Vec2 &o) const { return x * o.x + y * o.y; }
};
double st_operators_members(const double *x) {
  Vec2 a{x[0], x[1]}, b{x[2], x[3]};
  Vec2 c = (a + b) * 0.5;
  return c * c + a * b;
}
