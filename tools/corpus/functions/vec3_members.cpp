// dim: 9
// A Vec3 class whose operators and helpers are members (the style of many
// mesh libraries): the area of a triangle and the distance of its centroid.
struct Vec3 {
  double x, y, z;
  Vec3 operator+(const Vec3 &o) const { return {x + o.x, y + o.y, z + o.z}; }
  Vec3 operator-(const Vec3 &o) const { return {x - o.x, y - o.y, z - o.z}; }
  Vec3 operator*(double s) const { return {x * s, y * s, z * s}; }
  double dot(const Vec3 &o) const { return x * o.x + y * o.y + z * o.z; }
  Vec3 cross(const Vec3 &o) const {
    return {y * o.z - z * o.y, z * o.x - x * o.z, x * o.y - y * o.x};
  }
  double norm() const { return sqrt(dot(*this)); }
};
double vec3_members(const double *x) {
  Vec3 a{x[0], x[1], x[2]}, b{x[3], x[4], x[5]}, c{x[6], x[7], x[8]};
  double area = 0.5 * (b - a).cross(c - a).norm();
  Vec3 m = (a + b + c) * (1.0 / 3.0);
  return area + 0.1 * m.dot(m);
}
