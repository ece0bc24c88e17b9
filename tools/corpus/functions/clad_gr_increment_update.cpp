// dim: 1
// A for loop whose increment updates the result.
double f4(double x) {
  double t = 1;
  for (int i = 0; i < 3; t *= x)
    i++;
  return t;
}
double clad_gr_increment_update(const double *x) { return f4(x[0]); }
