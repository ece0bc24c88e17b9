// dim: 3
// Member functions: a const method computing a norm.
struct V3 {
  double x, y, z;
  double norm2() const { return x * x + y * y + z * z; }
  double norm() const { return sqrt(norm2()); }
};
double st_method_norm(const double *x) {
  V3 v{x[0], x[1], x[2]};
  return v.norm() + v.norm2();
}
