// dim: 2
// Loops with return: a do-while with an early return.
double lr_do_return(const double *x) {
  double y = x[0];
  int i = 0;
  do {
    y = sin(y) + x[1];
    if (i == 3)
      return y * y;
  } while (++i < 10);
  return y;
}
