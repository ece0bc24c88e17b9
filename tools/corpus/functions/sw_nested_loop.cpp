// dim: 3
// switch: inside a loop, selecting the update.
double sw_nested_loop(const double *x) {
  double y = x[0];
  for (int i = 0; i < 6; ++i) {
    switch (i % 3) {
    case 0:
      y = y * x[1];
      break;
    case 1:
      y = y + x[2];
      break;
    case 2:
      y = sqrt(y * y + 1);
      break;
    }
  }
  return y;
}
