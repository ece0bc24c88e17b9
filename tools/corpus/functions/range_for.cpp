// dim: 4
// A range-based for over a local array, with an if initializer.
double range_for(const double *x) {
  double w[4] = {x[0], x[1] * x[2], x[3], x[0] * x[3]};
  double s = 0;
  for (const double &v : w)
    if (double t = tanh(v); t > -2.0)
      s += t * v;
  return s;
}
