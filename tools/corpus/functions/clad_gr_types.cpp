// dim: 3
// Parameters of mixed floating types.
double f_types(float x, double y, double z) { return x * y + z * z; }
double clad_gr_types(const double *x) {
  return f_types((float)x[0], x[1], x[2]) + x[0] * x[2];
}
