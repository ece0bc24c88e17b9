// dim: 3
// A callee writing an output array.
void fill(const double *x, double *out, int n) {
  for (int i = 0; i < n; ++i)
    out[i] = x[i] * x[(i + 1) % n];
}
double clad_gr_call_array_out(const double *x) {
  double out[3];
  fill(x, out, 3);
  return out[0] + out[1] * out[2];
}
