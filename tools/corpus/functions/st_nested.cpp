// dim: 4
// Structs: a nested struct member.
struct Pt {
  double x, y;
};
struct Box {
  Pt lo, hi;
};
double st_nested(const double *x) {
  Box b;
  b.lo.x = x[0];
  b.lo.y = x[1];
  b.hi.x = x[0] + x[2];
  b.hi.y = x[1] + x[3];
  return (b.hi.x - b.lo.x) * (b.hi.y - b.lo.y);
}
