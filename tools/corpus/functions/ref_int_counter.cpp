// dim: 3
// References: an integer counter passed by reference beside doubles.
double pick(const double *x, int &k) { return x[k++]; }
double ref_int_counter(const double *x) {
  int k = 0;
  double a = pick(x, k);
  double b = pick(x, k);
  double c = pick(x, k);
  return a * b + b * c + k;
}
