// dim: 2
// References: a swap through two reference parameters.
void swapRef(double &a, double &b) {
  double t = a;
  a = b;
  b = t;
}
double ref_swap(const double *x) {
  double u = x[0] * 2, v = x[1] + 1;
  swapRef(u, v);
  return u * u + 3 * v;
}
