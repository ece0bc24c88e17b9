// dim: 6
// double3: members updated in a loop (an integrator).
double v3_members_loop(const double *x) {
  double3 p = make_double3(x[0], x[1], x[2]);
  double3 v = make_double3(x[3], x[4], x[5]);
  for (int i = 0; i < 5; ++i) {
    v.x -= 0.1 * p.x;
    v.y -= 0.1 * p.y;
    v.z -= 0.1 * (p.z + 1);
    p.x += 0.1 * v.x;
    p.y += 0.1 * v.y;
    p.z += 0.1 * v.z;
  }
  return p.x * p.x + p.y * p.y + p.z * v.z;
}
