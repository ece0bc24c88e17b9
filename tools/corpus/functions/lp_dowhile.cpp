// dim: 2
// Loops: a do-while fixed-point iteration.
double lp_dowhile(const double *x) {
  double y = 0;
  int k = 0;
  do {
    y = 0.5 * cos(y) + x[0] * x[1];
  } while (++k < 10);
  return y;
}
