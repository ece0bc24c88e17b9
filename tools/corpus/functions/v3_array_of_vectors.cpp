// dim: 6
// double3: a local array of vectors summed.
double v3_array_of_vectors(const double *x) {
  double3 v[2];
  v[0] = make_double3(x[0], x[1], x[2]);
  v[1] = make_double3(x[3], x[4], x[5]);
  double3 s = make_double3(v[0].x + v[1].x, v[0].y + v[1].y, v[0].z * v[1].z);
  return s.x * s.y + s.z;
}
