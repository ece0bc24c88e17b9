// dim: 3
// Loops with return: a while loop that returns from inside.
double lr_while_return(const double *x) {
  double y = x[0];
  int n = 0;
  while (true) {
    y = y * x[1] + x[2];
    if (++n == 4)
      return y;
  }
}
