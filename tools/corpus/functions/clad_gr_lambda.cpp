// dim: 2
// A lambda capturing a parameter by reference.
double clad_gr_lambda(const double *x) {
  double k = x[1];
  auto f = [&](double v) { return k * v * v; };
  return f(x[0]) + f(k);
}
