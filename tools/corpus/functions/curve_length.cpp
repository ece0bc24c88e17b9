// dim: 8
// point: 0 0 1 0 2 0.5 3 0
// The length of a 2D polyline walked with a moving pointer.
double curve_length(const double *x) {
  const double *p = x;
  double len = 0;
  for (int i = 0; i < 3; ++i) {
    double dx = p[2] - p[0], dy = p[3] - p[1];
    len += hypot(dx, dy);
    p += 2;
  }
  return len;
}
