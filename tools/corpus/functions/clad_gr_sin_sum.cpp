// dim: 2
// A product of sums of sines.
double f_sin(double x, double y) { return (std::sin(x) + std::sin(y)) * (x + y); }
double clad_gr_sin_sum(const double *x) { return f_sin(x[0], x[1]); }
