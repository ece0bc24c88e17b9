// dim: 3
// A class whose base holds data members, read and written through the
// derived object and the base's member functions.
struct Particle {
  double m, v;
  double momentum() const { return m * v; }
};
struct Charged : Particle {
  double q;
  double energy() const { return 0.5 * m * v * v + q * momentum(); }
};
double st_base_data(const double *x) {
  Charged c;
  c.m = x[0];
  c.v = x[1];
  c.q = x[2];
  c.v += c.q * 0.5;
  return c.energy();
}
