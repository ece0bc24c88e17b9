// dim: 1
// x^9 by nested loops.
double f2(double x) {
  double t = 1;
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      t *= x;
  return t;
}
double clad_gr_nested_power(const double *x) { return f2(x[0]); }
