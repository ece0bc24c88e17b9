// dim: 6
// double3: operator+= on a reference in a loop.
__host__ __device__ void operator+=(double3 &a, double3 b) {
  a.x += b.x;
  a.y += b.y;
  a.z += b.z;
}
double v3_plus_assign(const double *x) {
  double3 s = make_double3(0, 0, 0);
  for (int i = 0; i < 2; ++i)
    s += make_double3(x[3 * i] * x[3 * i], x[3 * i + 1], x[3 * i + 2]);
  return s.x * s.y + s.z;
}
