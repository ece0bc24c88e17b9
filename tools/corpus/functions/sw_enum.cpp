// dim: 3
// switch: over an enum chosen per term.
enum Kind { Linear, Quadratic, Cubic };
double term(Kind k, double v) {
  switch (k) {
  case Linear:
    return v;
  case Quadratic:
    return v * v;
  case Cubic:
    return v * v * v;
  }
  return 0;
}
double sw_enum(const double *x) {
  return term(Linear, x[0]) + term(Quadratic, x[1]) + term(Cubic, x[2]);
}
