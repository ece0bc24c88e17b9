// dim: 2
// A callee with a defaulted parameter.
double scale(double x, double k = 3.0) { return k * x * x; }
double clad_gr_default_arg(const double *x) { return scale(x[0]) + scale(x[1], x[0]); }
