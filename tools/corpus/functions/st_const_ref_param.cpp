// dim: 4
// Structs: a const-reference parameter.
struct Seg {
  double a, b, c, d;
};
double segLen(const Seg &s) {
  return sqrt((s.c - s.a) * (s.c - s.a) + (s.d - s.b) * (s.d - s.b));
}
double st_const_ref_param(const double *x) {
  Seg s{x[0], x[1], x[2], x[3]};
  return segLen(s) * x[0];
}
