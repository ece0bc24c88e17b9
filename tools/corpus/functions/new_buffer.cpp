// dim: 4
// A heap buffer with new[] and delete[].
double new_buffer(const double *x) {
  double *t = new double[4];
  for (int i = 0; i < 4; ++i)
    t[i] = x[i] * x[(i + 1) % 4];
  double s = 0;
  for (int i = 0; i < 4; ++i)
    s += t[i];
  delete[] t;
  return s;
}
