// dim: 4
// Loops with return: returning a value computed in the loop.
double lr_value_return(const double *x) {
  double acc = 1;
  for (int i = 0; i < 4; ++i) {
    acc = acc * x[i] + 1;
    if (acc > 100.0)
      return acc;
  }
  return log(acc);
}
