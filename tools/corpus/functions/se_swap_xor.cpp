// dim: 3
// Side effects: integers swapped with compound assignments pick the terms.
double se_swap_xor(const double *x) {
  int i = 0, j = 2;
  i ^= j, j ^= i, i ^= j;
  return x[i] * x[j] + x[1] / (1 + x[i]);
}
