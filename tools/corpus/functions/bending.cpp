// dim: 12
// point: 0 0 0 1 0 0 0.5 1 0 0.5 -1 0.3
// Discrete bending of two triangles sharing the edge (x0, x1): the dihedral
// angle's cosine from the two normals.
__host__ __device__ double3 edge(const double *x, int a, int b) {
  return make_double3(x[3 * b] - x[3 * a], x[3 * b + 1] - x[3 * a + 1],
                      x[3 * b + 2] - x[3 * a + 2]);
}
__host__ __device__ double3 crossp(double3 a, double3 b) {
  return make_double3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z,
                      a.x * b.y - a.y * b.x);
}
double bending(const double *x) {
  double3 e = edge(x, 0, 1);
  double3 n1 = crossp(e, edge(x, 0, 2));
  double3 n2 = crossp(edge(x, 0, 3), e);
  double d = n1.x * n2.x + n1.y * n2.y + n1.z * n2.z;
  double l1 = sqrt(n1.x * n1.x + n1.y * n1.y + n1.z * n1.z);
  double l2 = sqrt(n2.x * n2.x + n2.y * n2.y + n2.z * n2.z);
  double c = d / (l1 * l2);
  return (1.0 - c) * (1.0 - c);
}
