// dim: 2
// const value parameters.
double f_const(const double a, const double b) { return a * b + a / b; }
double clad_gr_const_params(const double *x) { return f_const(x[0], x[1]); }
