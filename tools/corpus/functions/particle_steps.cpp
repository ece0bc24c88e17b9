// dim: 3
// A struct of state passed to a time step by value and returned, updated
// through a reference, and read by a const-reference energy.
struct Particle {
  double x, v;
};
Particle step(Particle p, double dt, double k) {
  Particle q;
  q.v = p.v - dt * k * sin(p.x);
  q.x = p.x + dt * q.v;
  return q;
}
void damp(Particle &p, double c) { p.v *= 1.0 - c; }
double energy(const Particle &p, double k) {
  return 0.5 * p.v * p.v + k * (1.0 - cos(p.x));
}
double particle_steps(const double *x) {
  Particle p{x[0], x[1]};
  for (int i = 0; i < 5; ++i) {
    p = step(p, 0.1, x[2]);
    damp(p, 0.05);
  }
  return energy(p, x[2]);
}
