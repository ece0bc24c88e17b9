// dim: 3
// new[]/delete[]: two buffers, one derived from the other.
double heap_two_buffers(const double *x) {
  double *a = new double[3];
  double *b = new double[3];
  for (int i = 0; i < 3; ++i)
    a[i] = exp(x[i]);
  for (int i = 0; i < 3; ++i)
    b[i] = a[i] / (a[0] + a[1] + a[2]);
  double r = b[0] * x[1] + b[1] * x[2] + b[2] * x[0];
  delete[] a;
  delete[] b;
  return r;
}
