// dim: 1
// A do-while loop.
double fn_do(double x) {
  double r = 1;
  int i = 3;
  do {
    r = r * x + i;
    --i;
  } while (i > 0);
  return r;
}
double clad_gr_do_while(const double *x) { return fn_do(x[0]); }
