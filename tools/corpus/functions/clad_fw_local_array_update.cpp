// dim: 3
// A local array updated in a loop and reduced.
double clad_fw_local_array_update(const double *x) {
  double a[3] = {x[0], x[1], x[2]};
  for (int k = 0; k < 2; ++k)
    for (int i = 0; i < 3; ++i)
      a[i] = a[i] * a[(i + 1) % 3] + 0.1;
  return a[0] + a[1] + a[2];
}
