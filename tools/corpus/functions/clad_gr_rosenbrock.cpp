// dim: 2
// The Rosenbrock function of two parameters.
double f_rosenbrock(double x, double y) {
  return (x - 1) * (x - 1) + 100 * (y - x * x) * (y - x * x);
}
double clad_gr_rosenbrock(const double *x) { return f_rosenbrock(x[0], x[1]); }
