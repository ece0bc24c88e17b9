// dim: 3
// double3: normalize through a scalar operator and length.
__host__ __device__ double3 operator*(double3 a, double s) {
  return make_double3(a.x * s, a.y * s, a.z * s);
}
__host__ __device__ double len(double3 a) {
  return sqrt(a.x * a.x + a.y * a.y + a.z * a.z);
}
__host__ __device__ double3 normalize(double3 a) { return a * (1.0 / len(a)); }
double v3_normalize(const double *x) {
  double3 n = normalize(make_double3(x[0], x[1], x[2]));
  return n.x + 2 * n.y * n.z;
}
