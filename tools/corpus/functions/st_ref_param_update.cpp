// dim: 2
// Structs: updated through a non-const reference parameter.
struct State {
  double pos, vel;
};
void advance(State &s, double dt) {
  s.vel -= dt * s.pos;
  s.pos += dt * s.vel;
}
double st_ref_param_update(const double *x) {
  State s{x[0], x[1]};
  for (int i = 0; i < 4; ++i)
    advance(s, 0.2);
  return s.pos * s.vel;
}
