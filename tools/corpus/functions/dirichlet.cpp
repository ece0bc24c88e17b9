// dim: 8
// A 1D Dirichlet energy with a reference accumulator helper.
void addSquare(double &acc, double d) { acc += d * d; }
double dirichlet(const double *x) {
  double e = 0;
  for (int i = 0; i + 1 < 8; ++i)
    addSquare(e, x[i + 1] - x[i]);
  return 0.5 * e;
}
