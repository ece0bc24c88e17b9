// dim: 5
// Pointer arithmetic: for (p = x; p != end; ++p).
double ptr_end_loop(const double *x) {
  double s = 0;
  for (const double *p = x; p != x + 5; ++p)
    s += sin(*p);
  return s;
}
