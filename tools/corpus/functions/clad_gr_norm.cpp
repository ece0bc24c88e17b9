// dim: 3
// A p-norm through pow with the exponent a parameter.
double f_norm(double x, double y, double z, double d) {
  return std::pow(std::pow(x, d) + std::pow(y, d) + std::pow(z, d), 1 / d);
}
double clad_gr_norm(const double *x) { return f_norm(x[0], x[1], x[2], 3.0); }
