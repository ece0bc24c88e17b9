// dim: 3
// Loops: a while loop with break and continue.
double lp_while_break(const double *x) {
  double s = 0;
  int i = 0;
  while (i < 10) {
    ++i;
    if (i % 2 == 0)
      continue;
    s += x[i % 3] * i;
    if (i > 6)
      break;
  }
  return s * s;
}
