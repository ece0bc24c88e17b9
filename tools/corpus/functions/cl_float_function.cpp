// dim: 2
// A float helper called from double code (its result rounded).
float halfF(float v) { return 0.5f * v; }
double cl_float_function(const double *x) {
  return x[0] * x[1] + (double)halfF(2.0f);
}
