// dim: 2
// exp and log mixed with quotients.
double f_el(double x, double y) { return std::exp(x * y) / (1 + std::log(1 + x * x)); }
double clad_hs_exp_log_mix(const double *x) { return f_el(x[0], x[1]); }
