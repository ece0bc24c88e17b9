// dim: 6
// point: 0 0 1 0 0 1
// A 2D neo-Hookean triangle energy (reference: the unit right triangle).
double neo_hookean_2d(const double *x) {
  double F00 = x[2] - x[0], F10 = x[3] - x[1];
  double F01 = x[4] - x[0], F11 = x[5] - x[1];
  double J = F00 * F11 - F01 * F10;
  double I1 = F00 * F00 + F01 * F01 + F10 * F10 + F11 * F11;
  double logJ = log(J);
  return 0.5 * (I1 - 2.0) - logJ + 0.5 * logJ * logJ;
}
