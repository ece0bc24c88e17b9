// dim: 3
// double3: unary minus and a reflection.
__host__ __device__ double3 operator-(double3 a) {
  return make_double3(-a.x, -a.y, -a.z);
}
__host__ __device__ double3 operator*(double s, double3 a) {
  return make_double3(s * a.x, s * a.y, s * a.z);
}
__host__ __device__ double3 operator+(double3 a, double3 b) {
  return make_double3(a.x + b.x, a.y + b.y, a.z + b.z);
}
double v3_unary_minus(const double *x) {
  double3 v = make_double3(x[0], x[1], x[2]);
  double3 n = make_double3(0, 0, 1);
  double3 r = v + (-2.0 * v.z) * n;
  double3 w = -r;
  return w.x * w.y - w.z * v.x;
}
