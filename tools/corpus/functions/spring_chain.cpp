// dim: 12
// point: 0 0 0 0.5 0 0 1 0.1 0 1.5 0 0.2
// A chain of springs, rest length 0.5, summed in a loop.
double spring_chain(const double *x) {
  double e = 0;
  for (int i = 0; i + 1 < 4; ++i) {
    const double *p = x + 3 * i;
    const double *q = x + 3 * (i + 1);
    double d2 = 0;
    for (int k = 0; k < 3; ++k)
      d2 += (p[k] - q[k]) * (p[k] - q[k]);
    double l = sqrt(d2);
    e += 0.5 * (l - 0.5) * (l - 0.5);
  }
  return e;
}
