// dim: 3
// Side effects: a compound assignment as a condition, halving a value.
double se_compound_in_cond(const double *x) {
  double v = x[0] + x[1];
  int k = 0;
  while ((v *= 0.5) > 0.1)
    ++k;
  return v * x[2] + k;
}
