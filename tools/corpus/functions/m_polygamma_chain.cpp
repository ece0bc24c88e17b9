// dim: 1
// cmath: lgamma composed with exp.
double m_polygamma_chain(const double *x) { return lgamma(exp(x[0]) + 1); }
