// dim: 3
// A polynomial in three variables.
double f_vm(double x, double y, double z) { return x * x * y + y * y * z + z * z * x; }
double clad_fw_vector_mode_poly(const double *x) { return f_vm(x[0], x[1], x[2]); }
