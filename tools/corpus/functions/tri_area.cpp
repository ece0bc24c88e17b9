// dim: 9
// point: 0 0 0 1 0 0 0 1 0
// The area of a triangle through the cross product (double3 helpers).
__host__ __device__ double3 sub3(double3 a, double3 b) {
  return make_double3(a.x - b.x, a.y - b.y, a.z - b.z);
}
__host__ __device__ double3 cross3(double3 a, double3 b) {
  return make_double3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z,
                      a.x * b.y - a.y * b.x);
}
double tri_area(const double *x) {
  double3 a = make_double3(x[0], x[1], x[2]);
  double3 b = make_double3(x[3], x[4], x[5]);
  double3 c = make_double3(x[6], x[7], x[8]);
  double3 n = cross3(sub3(b, a), sub3(c, a));
  return 0.5 * sqrt(n.x * n.x + n.y * n.y + n.z * n.z);
}
