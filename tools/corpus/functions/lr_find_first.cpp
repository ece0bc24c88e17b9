// dim: 5
// Loops with return: the first element above a threshold (a search).
double lr_find_first(const double *x) {
  for (int i = 0; i < 5; ++i)
    if (i >= 2)
      return x[i] * x[0];
  return 0;
}
