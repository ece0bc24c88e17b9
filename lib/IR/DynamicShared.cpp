//===- IR/DynamicShared.cpp - A kernel's dynamic shared memory -------------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//

#include "IR/DynamicShared.h"
#include "IR/Clone.h"
#include "IR/Traversal.h"
#include "IR/Type.h"

#include <algorithm>

using namespace meshad;
using namespace meshad::ir;

static const char ShadowName[] = "meshad::dynamicSharedShadow";

const Expr *ir::dynamicSharedShadow(Module &M, const Type *PtrTy,
                                    unsigned Slot, unsigned Slots) {
  std::string Args = spellType(PtrTy->getElement());
  if (Slot != 1 || Slots != 2)
    Args += ", " + std::to_string(Slot) + ", " + std::to_string(Slots);
  return M.create<CallExpr>(PtrTy, CallExpr::CalleeKind::Intrinsic,
                            std::string(ShadowName) + "<" + Args + ">", -1,
                            std::vector<const Expr *>{});
}

/// The template arguments after the type of a shadow call: {Slot, Slots}.
static std::pair<unsigned, unsigned> slotsOf(const Expr *E) {
  if (!isDynamicSharedShadow(E))
    return {0, 0};
  llvm::StringRef Name = llvm::cast<CallExpr>(E)->getName();
  llvm::SmallVector<llvm::StringRef, 3> Parts;
  Name.drop_back().split(Parts, ", ");
  unsigned Slot = 1, Slots = 2;
  if (Parts.size() == 3 &&
      (Parts[1].trim().getAsInteger(10, Slot) ||
       Parts[2].trim().getAsInteger(10, Slots)))
    return {1, 2};
  return {Slot, Slots};
}

unsigned ir::sharedShadowSlot(const Expr *E) { return slotsOf(E).first; }
unsigned ir::sharedShadowSlots(const Expr *E) { return slotsOf(E).second; }

unsigned ir::sharedShadowFactor(const Function &F) {
  unsigned Factor = 1;
  if (F.getBody())
    forEachStmt(F.getBody(), [&](const Stmt *S) {
      for (const Expr *E : ownExprs(S))
        forEachExpr(E, [&](const Expr *X) {
          Factor = std::max(Factor, sharedShadowSlots(X));
        });
    });
  return Factor;
}

void ir::spreadSharedShadows(Module &M, Function &F) {
  if (!F.getBody() || !usesSharedShadow(F))
    return;
  IRCloner Cloner(M);
  Cloner.setExprHook([&](const Expr *E) -> const Expr * {
    if (sharedShadowSlots(E) == 2)
      return dynamicSharedShadow(M, E->getType(), sharedShadowSlot(E), 4);
    const auto *C = llvm::dyn_cast<CallExpr>(E);
    if (C && C->getName() == "meshad::zeroDynamicSharedShadow")
      return M.create<CallExpr>(C->getType(), CallExpr::CalleeKind::Intrinsic,
                                "meshad::zeroDynamicSharedShadow<4>", -1,
                                std::vector<const Expr *>{});
    return nullptr;
  });
  F.setBody(Cloner.cloneBlock(F.getBody()));
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
