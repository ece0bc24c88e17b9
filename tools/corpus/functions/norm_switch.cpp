// dim: 5
// A norm chosen by a switch, side effects in the loop.
double norm_switch(const double *x) {
  double s = 0;
  int i = 0;
  while (i < 5) {
    double v = x[i++];
    switch (i % 3) {
    case 0:
      s += v * v;
      break;
    case 1:
      s += v * v * v * v;
      break;
    default:
      s += sqrt(v * v + 1.0);
    }
  }
  return s;
}
