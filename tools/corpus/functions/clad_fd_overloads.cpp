// dim: 2
// Overloaded helpers for float and double (the float one given a constant:
// central differences in double cannot check a derivative through float
// rounding).
float twice(float x) { return 2 * x; }
double twice(double x) { return 2 * x * x; }
double clad_fd_overloads(const double *x) {
  return twice(x[0]) * x[1] + (double)twice(1.5f) * x[1];
}
