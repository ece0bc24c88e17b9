// dim: 3
// Structs: an array member filled in a loop.
struct Samples {
  double v[3];
};
double mean(const Samples &s) { return (s.v[0] + s.v[1] + s.v[2]) / 3; }
double st_array_member(const double *x) {
  Samples s;
  for (int i = 0; i < 3; ++i)
    s.v[i] = exp(x[i]);
  return log(mean(s));
}
