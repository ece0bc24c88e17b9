// dim: 4
// Loops: a product of terms.
double lp_product(const double *x) {
  double p = 1;
  for (int i = 0; i < 4; ++i)
    p *= 1 + x[i] * x[i];
  return p;
}
