// dim: 1
// point: 0.5
// A piecewise function with a jump.
double f_nc(double x) {
  if (x < 0)
    return x * x;
  else
    return x * x * x + 1;
}
double clad_fd_non_continuous(const double *x) { return f_nc(x[0]) + f_nc(x[0] - 1.0); }
