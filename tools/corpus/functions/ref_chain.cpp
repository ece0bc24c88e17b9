// dim: 2
// References: a reference parameter passed on to another function.
void scaleBy(double &v, double s) { v *= s; }
void scaleTwice(double &v, double s) {
  scaleBy(v, s);
  scaleBy(v, s + 1);
}
double ref_chain(const double *x) {
  double v = x[0];
  scaleTwice(v, x[1]);
  return v;
}
