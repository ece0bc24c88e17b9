// dim: 2
// Unary minus of sub-expressions and calls.
double fn_neg(double x, double y) { return -(x * y) + -std::sin(-x) - (-y); }
double clad_gr_unary_minus(const double *x) { return fn_neg(x[0], x[1]); }
