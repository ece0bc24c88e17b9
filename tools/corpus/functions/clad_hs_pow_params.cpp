// dim: 2
// pow with both arguments variable.
double f_pw(double x, double y) { return std::pow(x, y) + std::pow(y, x * 0.5); }
double clad_hs_pow_params(const double *x) { return f_pw(x[0] + 0.5, x[1] + 0.5); }
