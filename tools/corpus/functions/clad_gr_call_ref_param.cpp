// dim: 2
// A callee updating a reference parameter.
void modify(double &t, double x) { t = t * x + x; }
double clad_gr_call_ref_param(const double *x) {
  double t = x[1];
  modify(t, x[0]);
  modify(t, x[1]);
  return t;
}
