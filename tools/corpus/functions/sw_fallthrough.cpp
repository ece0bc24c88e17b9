// dim: 4
// switch: a fallthrough arm accumulating terms.
double sw_fallthrough(const double *x) {
  double s = 0;
  for (int i = 0; i < 4; ++i) {
    switch (i) {
    case 0:
      s += x[0];
      [[fallthrough]];
    case 1:
      s += x[i] * x[i];
      break;
    case 2:
      s *= x[2];
      break;
    default:
      s += exp(x[i]);
    }
  }
  return s;
}
