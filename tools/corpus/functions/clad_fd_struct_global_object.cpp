// dim: 2
// A method of a global object.
struct Poly {
  double a, b;
  double eval(double x) const { return a * x * x + b * x; }
};
Poly gPoly{2.0, -1.0};
double clad_fd_struct_global_object(const double *x) { return gPoly.eval(x[0]) * x[1]; }
