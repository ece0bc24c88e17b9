// dim: 1
// A while loop with a counter.
double fn_while(double x) {
  double r = 0;
  int i = 0;
  while (i < 5) {
    r += x * i;
    x *= 1.1;
    i++;
  }
  return r;
}
double clad_gr_while_loop(const double *x) { return fn_while(x[0]); }
