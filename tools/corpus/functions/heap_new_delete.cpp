// dim: 4
// new[]/delete[]: a scratch buffer of prefix sums.
double heap_new_delete(const double *x) {
  double *c = new double[4];
  c[0] = x[0];
  for (int i = 1; i < 4; ++i)
    c[i] = c[i - 1] + x[i];
  double s = 0;
  for (int i = 0; i < 4; ++i)
    s += c[i] * c[i];
  delete[] c;
  return s;
}
