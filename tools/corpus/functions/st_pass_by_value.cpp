// dim: 4
// Structs: passed by value to a helper and returned.
struct Complex {
  double re, im;
};
Complex mul(Complex a, Complex b) {
  return {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
}
double st_pass_by_value(const double *x) {
  Complex a{x[0], x[1]}, b{x[2], x[3]};
  Complex c = mul(a, b);
  Complex d = mul(c, a);
  return d.re * d.re + d.im;
}
