// dim: 2
// A global constant array read by index.
const double kWeights[3] = {0.5, 1.5, -0.75};
double cl_global_constant(const double *x) {
  double s = 0;
  for (int i = 0; i < 3; ++i)
    s += kWeights[i] * x[i % 2] * x[(i + 1) % 2];
  return s;
}
