// dim: 4
// Horner's scheme with coefficients from the inputs.
double polynomial(const double *x) {
  double c[4] = {1.0, -0.5, 0.25, x[3]};
  double t = x[0] + x[1] * x[2];
  double r = 0;
  for (int i = 3; i >= 0; --i)
    r = r * t + c[i];
  return r;
}
