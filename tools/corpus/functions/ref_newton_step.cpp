// dim: 2
// References: a Newton step for sqrt(a) updating the iterate in place.
void newtonSqrt(double &y, double a) { y = 0.5 * (y + a / y); }
double ref_newton_step(const double *x) {
  double y = 1.0;
  for (int i = 0; i < 4; ++i)
    newtonSqrt(y, x[0] + x[1]);
  return y;
}
