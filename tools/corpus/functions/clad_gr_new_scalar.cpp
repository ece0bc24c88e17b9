// dim: 2
// Scalars and a small array on the heap.
double newAndDeletePointer(double i, double j) {
  double *p = new double(i);
  double *q = new double(j);
  double *r = new double[2];
  r[0] = i + j;
  r[1] = i * j;
  double sum = *p + *q + r[0] + r[1];
  delete p;
  delete q;
  delete[] r;
  return sum;
}
double clad_gr_new_scalar(const double *x) { return newAndDeletePointer(x[0], x[1]); }
