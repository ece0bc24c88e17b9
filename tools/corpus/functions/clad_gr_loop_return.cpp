// dim: 1
// A return from inside a loop.
double f3(double x) {
  double t = 1;
  for (int i = 0; i < 3; i++) {
    t *= x;
    if (i == 1)
      return t;
  }
  return t;
}
double clad_gr_loop_return(const double *x) { return f3(x[0]); }
