// dim: 4
// point: 1 0.2 0.3 0.1
// The rotation of a fixed vector by a normalised quaternion.
double quaternion(const double *x) {
  double n = sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2] + x[3] * x[3]);
  double w = x[0] / n, a = x[1] / n, b = x[2] / n, c = x[3] / n;
  double vx = 1.0, vy = 0.5, vz = -0.25;
  double rx = (1 - 2 * (b * b + c * c)) * vx + 2 * (a * b - c * w) * vy +
              2 * (a * c + b * w) * vz;
  double ry = 2 * (a * b + c * w) * vx + (1 - 2 * (a * a + c * c)) * vy +
              2 * (b * c - a * w) * vz;
  return rx * ry;
}
