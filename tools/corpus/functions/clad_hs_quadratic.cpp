// dim: 2
// A quadratic form (constant Hessian).
double f_quad(double x, double y) { return 2 * x * x + 3 * x * y + 5 * y * y; }
double clad_hs_quadratic(const double *x) { return f_quad(x[0], x[1]); }
