// dim: 2
// switch: a default arm alone, and a case after it.
double sw_default_only(const double *x) {
  int m = 3;
  double r;
  switch (m) {
  default:
    r = x[0] * x[1];
    break;
  case 1:
    r = x[0];
    break;
  }
  return r;
}
