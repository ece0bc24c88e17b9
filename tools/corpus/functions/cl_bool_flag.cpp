// dim: 2
// A bool flag deciding the formula.
double cl_bool_flag(const double *x) {
  bool big = x[0] + x[1] > 5.0;
  return big ? log(x[0]) : x[0] * x[1] * x[1];
}
