// dim: 4
// Loops with return: a return from a nested loop.
double lr_nested_return(const double *x) {
  double s = 0;
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) {
      s += x[i] * x[j];
      if (i == 2 && j == 1)
        return s;
    }
  return -s;
}
