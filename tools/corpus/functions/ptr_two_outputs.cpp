// dim: 3
// Pointers: two results written through pointers to locals.
void sincos2(double a, double *s, double *c) {
  *s = sin(a);
  *c = cos(a);
}
double ptr_two_outputs(const double *x) {
  double s, c;
  sincos2(x[0] * x[1], &s, &c);
  return s * x[2] + c;
}
