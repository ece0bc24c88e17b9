// dim: 1
// A polynomial by Horner's rule with constant coefficients.
double cl_polynomial_horner(const double *x) {
  const double c[5] = {1.0, -2.0, 0.5, 3.0, -0.25};
  double r = 0;
  for (int i = 4; i >= 0; --i)
    r = r * x[0] + c[i];
  return r;
}
