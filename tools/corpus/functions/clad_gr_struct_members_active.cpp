// dim: 2
// A struct whose members hold the inputs.
struct Pair {
  double a, b;
  double prod() const { return a * b; }
};
double clad_gr_struct_members_active(const double *x) {
  Pair p{x[0], x[1]};
  p.a = p.a * p.b;
  return p.prod() + p.a;
}
