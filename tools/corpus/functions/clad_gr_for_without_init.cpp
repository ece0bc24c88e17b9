// dim: 2
// A for loop without init and condition, left by break.
double fn_noinit(double x, double y) {
  double r = 0;
  int i = 0;
  for (;;) {
    if (i >= 4)
      break;
    r += x * y + i;
    i++;
  }
  return r;
}
double clad_gr_for_without_init(const double *x) { return fn_noinit(x[0], x[1]); }
