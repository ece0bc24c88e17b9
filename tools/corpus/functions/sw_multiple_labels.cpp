// dim: 3
// switch: several labels on one arm.
double sw_multiple_labels(const double *x) {
  double s = 0;
  for (int i = 0; i < 5; ++i) {
    switch (i) {
    case 0:
    case 2:
    case 4:
      s += x[i % 3];
      break;
    case 1:
    case 3:
      s *= x[1];
      break;
    }
  }
  return s;
}
