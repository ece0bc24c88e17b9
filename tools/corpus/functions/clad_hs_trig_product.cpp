// dim: 2
// Products of trigonometric functions.
double f_tp(double x, double y) { return std::sin(x) * std::cos(y) * x * y; }
double clad_hs_trig_product(const double *x) { return f_tp(x[0], x[1]); }
