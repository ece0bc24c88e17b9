// dim: 3
// Member operators: operator[] on a small fixed vector.
struct Small {
  double v[3];
  double &operator[](int i) { return v[i]; }
  double sum() const { return v[0] + v[1] + v[2]; }
};
double st_index_operator(const double *x) {
  Small s;
  for (int i = 0; i < 3; ++i)
    s[i] = x[i] * x[i];
  return s.sum() * s[1];
}
