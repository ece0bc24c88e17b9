// dim: 4
// Pointer arithmetic over an array parameter.
double fn_ptr_sum(const double *x, int n) {
  const double *end = x + n;
  double s = 0;
  for (const double *p = x; p != end; ++p)
    s += *p * *p;
  return s;
}
double clad_fw_ptr_arith(const double *x) { return fn_ptr_sum(x, 4) + fn_ptr_sum(x + 1, 2); }
