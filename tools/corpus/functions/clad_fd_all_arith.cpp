// dim: 2
// All four arithmetic operators with literals.
double f_all(double x, double y) { return (x + y) * (x - y) / (x * y + 1.5) - 2.0 / x; }
double clad_fd_all_arith(const double *x) { return f_all(x[0], x[1]); }
