// dim: 3
// References: an accumulator updated by a helper in a loop.
void addSquare(double &acc, double v) { acc += v * v; }
double ref_accumulate(const double *x) {
  double acc = 0;
  for (int i = 0; i < 3; ++i)
    addSquare(acc, x[i] * (i + 1));
  return sqrt(acc);
}
