// dim: 2
// Side effects: a do-while whose condition updates the state.
double se_do_while_cond(const double *x) {
  double y = x[0];
  int n = 0;
  do {
    y = y * x[1] + 0.1;
  } while (++n < 5);
  return y;
}
