// dim: 2
// A mutable global read by the function.
double gFactor = 2.5;
double fn_global(double x, double y) { return gFactor * x * y + gFactor; }
double clad_gr_global_var(const double *x) { return fn_global(x[0], x[1]); }
