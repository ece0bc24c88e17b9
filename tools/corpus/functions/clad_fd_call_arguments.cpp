// dim: 2
// Call arguments that are expressions and literals.
double g(double x) { return x * x; }
double h(double x, double y) { return x / y; }
double f_args(double x, double y) { return g(x + y) + h(g(x), 2 + y) + g(3.0); }
double clad_fd_call_arguments(const double *x) { return f_args(x[0], x[1]); }
