// dim: 3
// cmath: a log barrier sum.
double m_log_barrier(const double *x) {
  double s = 0;
  for (int i = 0; i < 3; ++i)
    s -= log(x[i]) + log(1.5 - x[i]);
  return s;
}
