// dim: 2
// Overloaded helpers for float and double.
float twice(float x) { return 2 * x; }
double twice(double x) { return 2 * x * x; }
double clad_fd_overloads(const double *x) {
  return twice(x[0]) * x[1] + (double)twice((float)x[1]);
}
