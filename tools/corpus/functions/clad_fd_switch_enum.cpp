// dim: 2
// A switch over an enum.
enum class Op { Add, Mul, Sub };
double apply(Op op, double x, double y) {
  switch (op) {
  case Op::Add:
    return x + y;
  case Op::Mul:
    return x * y;
  case Op::Sub:
    return x - y;
  }
  return 0;
}
double clad_fd_switch_enum(const double *x) {
  return apply(Op::Mul, x[0], x[1]) + apply(Op::Sub, x[1], x[0] * x[0]);
}
