// dim: 3
// A member function of a plain struct.
struct Vec {
  double x, y, z;
  double norm2() const { return x * x + y * y + z * z; }
};
double member_fn(const double *x) {
  Vec v{x[0], x[1], x[2]};
  return v.norm2();
}
