// dim: 2
// const locals and compound assignments of every kind.
double cl_const_local(const double *x) {
  const double a = x[0] * 2;
  double y = x[1];
  y += a;
  y -= x[0];
  y *= a;
  y /= 1 + x[1];
  return y;
}
