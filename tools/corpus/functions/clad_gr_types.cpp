// dim: 3
// Parameters of mixed integer and floating types (the float one given a
// constant: central differences in double cannot check a derivative through
// float rounding).
double f_types(int k, float s, double y, double z) { return k * y + s * z * z + y * z; }
double clad_gr_types(const double *x) {
  return f_types(3, 0.5f, x[1], x[2]) + x[0] * x[2];
}
