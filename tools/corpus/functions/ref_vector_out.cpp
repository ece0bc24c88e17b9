// dim: 6
// References: a double3 out-parameter.
double3 make3(double a, double b, double c) { return make_double3(a, b, c); }
void crossInto(double3 a, double3 b, double3 &out) {
  out.x = a.y * b.z - a.z * b.y;
  out.y = a.z * b.x - a.x * b.z;
  out.z = a.x * b.y - a.y * b.x;
}
double ref_vector_out(const double *x) {
  double3 c;
  crossInto(make3(x[0], x[1], x[2]), make3(x[3], x[4], x[5]), c);
  return c.x * c.x + c.y * c.y + c.z * c.z;
}
