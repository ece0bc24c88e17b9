// dim: 1
// x^3 by a loop of multiplications.
double f1(double x) {
  double t = 1;
  for (int i = 0; i < 3; i++)
    t *= x;
  return t;
}
double clad_gr_loop_power(const double *x) { return f1(x[0]); }
