// dim: 2
// cmath: float overloads inside a double function.
double m_float_math(const double *x) {
  double a = x[0], b = x[1];
  return sinf(0.0f) + exp(a) * cos(b) + (double)sqrtf(4.0f) * a;
}
