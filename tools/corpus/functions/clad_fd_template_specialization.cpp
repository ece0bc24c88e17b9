// dim: 2
// A template with an explicit specialization.
template <typename T> T cube(T x) { return x * x * x; }
template <> double cube<double>(double x) { return x * x * x + 0.0; }
double clad_fd_template_specialization(const double *x) { return cube(x[0]) * cube<double>(x[1]); }
