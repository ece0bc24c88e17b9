// dim: 1
// A polynomial of one variable written out term by term.
double f_poly(double x) { return 3 * x * x * x + 2 * x * x - 5 * x + 7; }
double clad_fd_one_var_poly(const double *x) { return f_poly(x[0]); }
