// dim: 4
// An IPC-style log barrier on distances below dhat.
double barrier(const double *x) {
  const double dhat = 2.0;
  double e = 0;
  for (int i = 0; i < 4; ++i) {
    double d = 0.5 + x[i] * x[i];
    if (d < dhat)
      e += -(d - dhat) * (d - dhat) * log(d / dhat);
  }
  return e;
}
