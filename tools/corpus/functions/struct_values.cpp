// dim: 4
// A plain struct as a value passed to a helper.
struct Pair {
  double a, b;
};
double pairEnergy(Pair p) { return p.a * p.b + p.a; }
double struct_values(const double *x) {
  Pair p{x[0] + x[1], x[2] * x[3]};
  return pairEnergy(p);
}
