// dim: 12
// point: 0 0 0 1 0 0 0 1 0 1 1 0.3
// double3: the cosine of a dihedral angle of two triangles.
__host__ __device__ double3 sub(double3 a, double3 b) {
  return make_double3(a.x - b.x, a.y - b.y, a.z - b.z);
}
__host__ __device__ double3 crs(double3 a, double3 b) {
  return make_double3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z,
                      a.x * b.y - a.y * b.x);
}
__host__ __device__ double dt(double3 a, double3 b) {
  return a.x * b.x + a.y * b.y + a.z * b.z;
}
double v3_dihedral(const double *x) {
  double3 p[4];
  for (int i = 0; i < 4; ++i)
    p[i] = make_double3(x[3 * i], x[3 * i + 1], x[3 * i + 2]);
  double3 n1 = crs(sub(p[1], p[0]), sub(p[2], p[0]));
  double3 n2 = crs(sub(p[2], p[1]), sub(p[3], p[1]));
  return dt(n1, n2) / sqrt(dt(n1, n1) * dt(n2, n2));
}
