//===- IR/NameScope.cpp - Unique, readable names for generated code -------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//

#include "IR/NameScope.h"
#include "IR/IR.h"
#include "IR/Traversal.h"

using namespace meshad;
using namespace meshad::ir;

void NameScope::addFunction(const Function &F) {
  for (const Var *P : F.getParams())
    reserve(P->getName());
  addStmt(F.getBody());
}

void NameScope::addStmt(const Stmt *S) {
  forEachStmt(S, [&](const Stmt *Sub) {
    if (const auto *D = llvm::dyn_cast<DeclStmt>(Sub))
      reserve(D->getVar()->getName());
    if (const auto *L = llvm::dyn_cast<LaunchStmt>(Sub))
      reserve(L->getKernel()->getName());
    for (const Expr *E : ownExprs(Sub))
      forEachExpr(E, [&](const Expr *Op) {
        if (const auto *R = llvm::dyn_cast<VarRefExpr>(Op))
          reserve(R->getVar()->getName());
        else if (const auto *C = llvm::dyn_cast<CallExpr>(Op))
          reserve(C->getCalleeKind() == CallExpr::CalleeKind::User
                      ? C->getUserCallee()->getName()
                      : C->getName());
      });
  });
}

std::string NameScope::unique(const std::string &Name) {
  if (Known.insert(Name).second)
    return Name;
  for (unsigned &N = NextSuffix.try_emplace(Name, 1).first->second;; ++N) {
    std::string Candidate = Name + "_" + std::to_string(N);
    if (Known.insert(Candidate).second)
      return Candidate;
  }
}

std::string NameScope::numbered(const std::string &Prefix) {
  for (unsigned &N = NextNumber[Prefix];; ++N) {
    std::string Candidate = Prefix + std::to_string(N);
    if (Known.insert(Candidate).second)
      return Candidate;
  }
}

std::string NameScope::declare(const std::string &Name) {
  if (Declared.insert(Name).second) {
    Known.insert(Name);
    return Name;
  }
  std::string Renamed = unique(Name);
  Declared.insert(Renamed);
  return Renamed;
}
