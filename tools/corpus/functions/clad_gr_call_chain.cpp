// dim: 2
// Calls nested several levels deep.
double sq(double x) { return x * x; }
double one(double x) { return sq(std::sin(x)) + sq(std::cos(x)); }
double fn_calls(double x, double y) { return one(x) * y + sq(sq(y)); }
double clad_gr_call_chain(const double *x) { return fn_calls(x[0], x[1]); }
