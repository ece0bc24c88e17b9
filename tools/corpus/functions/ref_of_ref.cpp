// dim: 2
// References: a reference to a reference local.
double ref_of_ref(const double *x) {
  double s = x[0];
  double &r = s;
  double &q = r;
  q *= x[1];
  r += q * x[0];
  return s;
}
