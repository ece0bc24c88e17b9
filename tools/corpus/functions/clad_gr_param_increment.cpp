// dim: 1
// A parameter incremented in a loop.
double f5(double x) {
  for (int i = 0; i < 10; i++)
    x++;
  return x * x;
}
double clad_gr_param_increment(const double *x) { return f5(x[0]); }
