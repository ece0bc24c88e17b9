// dim: 2
// point: 0.8 0.3
// if / else if / else returning different parameters.
double f_if2(double x, double y) {
  if (x > y)
    return x * x;
  else if (y > 0)
    return y * x;
  else
    return -y;
}
double clad_gr_if_else_chain(const double *x) {
  return f_if2(x[0], x[1]) + f_if2(x[1], x[0]);
}
