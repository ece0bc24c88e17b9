//===- IR/DynamicShared.cpp - A kernel's dynamic shared memory -------------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//

#include "IR/DynamicShared.h"
#include "IR/Traversal.h"
#include "IR/Type.h"

using namespace meshad;
using namespace meshad::ir;

static const char ShadowName[] = "meshad::dynamicSharedShadow";

const Expr *ir::dynamicSharedShadow(Module &M, const Type *PtrTy) {
  return M.create<CallExpr>(
      PtrTy, CallExpr::CalleeKind::Intrinsic,
      std::string(ShadowName) + "<" + spellType(PtrTy->getElement()) + ">",
      -1, std::vector<const Expr *>{});
}

bool ir::isDynamicSharedShadow(const Expr *E) {
  const auto *C = llvm::dyn_cast_or_null<CallExpr>(E);
  return C && C->getCalleeKind() == CallExpr::CalleeKind::Intrinsic &&
         llvm::StringRef(C->getName()).starts_with(ShadowName);
}

bool ir::usesSharedShadow(const Function &F) {
  bool Uses = false;
  if (F.getBody())
    forEachStmt(F.getBody(), [&](const Stmt *S) {
      for (const Expr *E : ownExprs(S))
        forEachExpr(E, [&](const Expr *X) { Uses |= isDynamicSharedShadow(X); });
    });
  return Uses;
}

const DeclStmt *ir::findDynamicShared(const Function &F) {
  const DeclStmt *Found = nullptr;
  if (F.getBody())
    forEachStmt(F.getBody(), [&](const Stmt *S) {
      const auto *D = llvm::dyn_cast<DeclStmt>(S);
      if (!Found && D && isDynamicShared(*D->getVar()))
        Found = D;
    });
  return Found;
}
