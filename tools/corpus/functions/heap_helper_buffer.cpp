// dim: 4
// new[]/delete[]: a buffer filled by a helper through a pointer.
void fillSquares(const double *v, double *out, int n) {
  for (int i = 0; i < n; ++i)
    out[i] = v[i] * v[i];
}
double heap_helper_buffer(const double *x) {
  double *sq = new double[4];
  fillSquares(x, sq, 4);
  double r = sq[0] + sq[1] * sq[2] - sq[3];
  delete[] sq;
  return r;
}
