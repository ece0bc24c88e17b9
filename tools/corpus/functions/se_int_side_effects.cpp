// dim: 3
// Side effects on integers only (no derivative), mixed with doubles.
double se_int_side_effects(const double *x) {
  int a = 1, b = 2;
  int c = (a += 2) * (b -= 1);
  double s = 0;
  for (int i = 0; i < 3; ++i)
    s += c * x[i] * x[i];
  return s;
}
