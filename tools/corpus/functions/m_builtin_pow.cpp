// dim: 2
// cmath: __builtin_pow and __builtin_sqrt spellings.
double m_builtin_pow(const double *x) {
  return __builtin_pow(x[0], 1.5) + __builtin_sqrt(x[1] + x[0]);
}
