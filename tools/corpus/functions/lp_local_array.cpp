// dim: 4
// Loops: a local array updated in place (a smoothing pass).
double lp_local_array(const double *x) {
  double a[4];
  for (int i = 0; i < 4; ++i)
    a[i] = x[i];
  for (int it = 0; it < 3; ++it)
    for (int i = 1; i < 3; ++i)
      a[i] = 0.25 * a[i - 1] + 0.5 * a[i] + 0.25 * a[i + 1];
  return a[1] * a[2];
}
