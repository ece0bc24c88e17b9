// dim: 3
// A local lambda.
double lambda_local(const double *x) {
  auto sq = [](double v) { return v * v; };
  return sq(x[0]) + sq(x[1] - x[2]);
}
