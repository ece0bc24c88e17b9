// dim: 6
// double3 operators written as free functions (helper_math.h style).
__host__ __device__ double3 operator+(double3 a, double3 b) {
  return make_double3(a.x + b.x, a.y + b.y, a.z + b.z);
}
__host__ __device__ double3 operator-(double3 a, double3 b) {
  return make_double3(a.x - b.x, a.y - b.y, a.z - b.z);
}
__host__ __device__ double3 operator*(double s, double3 a) {
  return make_double3(s * a.x, s * a.y, s * a.z);
}
__host__ __device__ double dot(double3 a, double3 b) {
  return a.x * b.x + a.y * b.y + a.z * b.z;
}
double v3_operators(const double *x) {
  double3 p = make_double3(x[0], x[1], x[2]);
  double3 q = make_double3(x[3], x[4], x[5]);
  double3 m = 0.5 * (p + q);
  double3 d = p - q;
  return dot(m, m) + dot(d, d) * dot(p, q);
}
