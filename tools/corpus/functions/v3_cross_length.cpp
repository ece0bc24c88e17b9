// dim: 9
// double3: cross product and length, a triangle's area.
__host__ __device__ double3 operator-(double3 a, double3 b) {
  return make_double3(a.x - b.x, a.y - b.y, a.z - b.z);
}
__host__ __device__ double3 cross(double3 a, double3 b) {
  return make_double3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z,
                      a.x * b.y - a.y * b.x);
}
__host__ __device__ double length(double3 a) {
  return sqrt(a.x * a.x + a.y * a.y + a.z * a.z);
}
double v3_cross_length(const double *x) {
  double3 a = make_double3(x[0], x[1], x[2]);
  double3 b = make_double3(x[3], x[4], x[5]);
  double3 c = make_double3(x[6], x[7], x[8]);
  return 0.5 * length(cross(b - a, c - a));
}
