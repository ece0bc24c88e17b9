// dim: 2
// Pointers: the address of a local passed to a helper (h(args, &v)).
void polar(double a, double b, double *r) { *r = sqrt(a * a + b * b); }
double ptr_address_of(const double *x) {
  double r;
  polar(x[0], x[1], &r);
  return r * x[0];
}
