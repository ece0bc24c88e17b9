//===- IR/Markers.cpp - The regions of a derivative -----------------------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//

#include "IR/Markers.h"

using namespace meshad;
using namespace meshad::ir;

size_t ir::findMarker(const BlockStmt &Body, MarkerStmt::Region R) {
  const std::vector<const Stmt *> &Stmts = Body.getBody();
  for (size_t I = 0; I < Stmts.size(); ++I)
    if (const auto *M = llvm::dyn_cast<MarkerStmt>(Stmts[I]))
      if (M->getRegion() == R)
        return I;
  return NoMarker;
}

bool ir::hasMarkers(const Function &F) {
  if (!F.getBody())
    return false;
  for (const Stmt *S : F.getBody()->getBody())
    if (llvm::isa<MarkerStmt>(S))
      return true;
  return false;
}

void ir::dropMarkers(Function &F) {
  if (!hasMarkers(F))
    return;
  std::vector<const Stmt *> Kept;
  for (const Stmt *S : F.getBody()->getBody())
    if (!llvm::isa<MarkerStmt>(S))
      Kept.push_back(S);
  F.getBody()->setBody(std::move(Kept));
}
