// dim: 6
// Vector operators (helper_math style) with += on a reference.
__host__ __device__ double3 operator+(double3 a, double3 b) {
  return make_double3(a.x + b.x, a.y + b.y, a.z + b.z);
}
__host__ __device__ double3 operator*(double s, double3 a) {
  return make_double3(s * a.x, s * a.y, s * a.z);
}
__host__ __device__ void operator+=(double3 &a, double3 b) {
  a.x += b.x;
  a.y += b.y;
  a.z += b.z;
}
double vec_ops_energy(const double *x) {
  double3 p = make_double3(x[0], x[1], x[2]);
  double3 v = make_double3(x[3], x[4], x[5]);
  double3 c = p + 0.5 * v;
  for (int i = 0; i < 3; ++i)
    c += 0.1 * c;
  return c.x * c.x + c.y * c.z;
}
