// dim: 3
// cmath: fdim, fmin, fmax away from their kinks.
double m_fdim_fminmax(const double *x) {
  return fdim(x[0] + 2, x[1]) + fmin(x[2], 5.0) * fmax(x[0], -1.0);
}
