//===- IR/IR.cpp - The meshad intermediate representation -----------------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//

#include "IR/IR.h"

using namespace meshad;
using namespace meshad::ir;

bool ir::isArithmetic(BinaryOp Op) {
  switch (Op) {
  case BinaryOp::Add:
  case BinaryOp::Sub:
  case BinaryOp::Mul:
  case BinaryOp::Div:
    return true;
  default:
    return false;
  }
}

bool ir::isComparisonOrLogical(BinaryOp Op) {
  switch (Op) {
  case BinaryOp::Lt:
  case BinaryOp::Gt:
  case BinaryOp::Le:
  case BinaryOp::Ge:
  case BinaryOp::Eq:
  case BinaryOp::Ne:
  case BinaryOp::LAnd:
  case BinaryOp::LOr:
    return true;
  default:
    return false;
  }
}

int Function::getParamIndex(const Var *P) const {
  for (unsigned I = 0, E = Params.size(); I != E; ++I)
    if (Params[I] == P)
      return static_cast<int>(I);
  return -1;
}

std::string VarRoles::str() const {
  static const std::pair<Role, const char *> Names[] = {
      {Primal, "primal"},
      {Tangent, "tangent"},
      {Adjoint, "adjoint"},
      {Tape, "tape"},
      {Temporary, "temporary"}};
  std::string S;
  for (const auto &[R, Name] : Names)
    if (has(R))
      S += (S.empty() ? "" : "|") + std::string(Name);
  return S.empty() ? "none" : S;
}

const char *MarkerStmt::getRegionName(Region R) {
  switch (R) {
  case Region::SetupEnd:
    return "setup-end";
  case Region::ForwardBegin:
    return "forward-begin";
  case Region::ReverseBegin:
    return "reverse-begin";
  case Region::EpilogueBegin:
    return "epilogue-begin";
  case Region::EpilogueEnd:
    return "epilogue-end";
  }
  return "?";
}
