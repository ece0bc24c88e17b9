// dim: 3
// Unary minus in products of three parameters.
double f_c(double x, double y, double z) { return -x * y + z * -x - (-y) * z; }
double clad_gr_neg_products(const double *x) { return f_c(x[0], x[1], x[2]); }
