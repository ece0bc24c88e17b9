// dim: 2
// point: 0.3 0.7
// A parameter overwritten in a branch.
double f2(double x, double y) {
  if (x < y)
    x = y;
  return x * y;
}
double clad_gr_assign_in_branch(const double *x) { return f2(x[0], x[1]); }
