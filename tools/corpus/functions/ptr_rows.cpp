// dim: 6
// Pointer arithmetic: rows of a 2x3 matrix as pointers.
double rowDot(const double *r, const double *s) {
  return r[0] * s[0] + r[1] * s[1] + r[2] * s[2];
}
double ptr_rows(const double *x) {
  const double *r0 = x, *r1 = x + 3;
  return rowDot(r0, r0) * rowDot(r1, r1) - rowDot(r0, r1) * rowDot(r0, r1);
}
