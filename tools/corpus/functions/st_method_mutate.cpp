// dim: 3
// Member functions: a method that updates the object.
struct Acc {
  double sum, sq;
  void add(double v) {
    sum += v;
    sq += v * v;
  }
  double var(int n) const { return sq / n - (sum / n) * (sum / n); }
};
double st_method_mutate(const double *x) {
  Acc a{0, 0};
  for (int i = 0; i < 3; ++i)
    a.add(x[i]);
  return a.var(3);
}
