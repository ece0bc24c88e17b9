// dim: 3
// switch: with an initializer statement.
double sw_init(const double *x) {
  double s = 0;
  for (int i = 0; i < 3; ++i)
    switch (int k = (i * 2) % 3; k) {
    case 0:
      s += x[i];
      break;
    case 1:
      s += x[i] * x[i];
      break;
    default:
      s -= log(x[i]);
    }
  return s;
}
