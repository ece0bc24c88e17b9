// dim: 2
// Pointer locals to scalars, read and written through.
double fn_ptr(double x, double y) {
  double *p = &x;
  double *q = &y;
  *p = *p * *q;
  return x + *q * *p;
}
double clad_gr_pointer_local_deref(const double *x) { return fn_ptr(x[0], x[1]); }
