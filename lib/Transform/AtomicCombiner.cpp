//===- Transform/AtomicCombiner.cpp - One atomic per address --------------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//

#include "Transform/AtomicCombiner.h"
#include "Analysis/Activity.h"
#include "Emit/CudaEmitter.h"
#include "IR/Traversal.h"

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringRef.h"

#include <string>

using namespace meshad;
using namespace meshad::ir;
using llvm::cast;
using llvm::dyn_cast;

namespace {

/// An `atomic(address, value);` statement of the adjoint accumulation.
struct AtomicAdd {
  const CallExpr *Call = nullptr;
  std::string Address;

  const Expr *getValue() const { return Call->getArg(1); }
};

/// The atomic add that \p S is, if it is one.
std::optional<AtomicAdd> matchAtomic(const Stmt *S) {
  const auto *ES = dyn_cast<ExprStmt>(S);
  const auto *C = ES ? dyn_cast<CallExpr>(ES->getExpr()) : nullptr;
  if (!C || C->getCalleeKind() != CallExpr::CalleeKind::Intrinsic ||
      C->getNumArgs() != 2)
    return std::nullopt;
  llvm::StringRef Name = C->getName();
  if (Name != "atomicAdd" && Name != "meshad::warpAtomicAdd" &&
      Name != "meshad::atomicAccumulate")
    return std::nullopt;
  return AtomicAdd{C, CudaEmitter::emitExpr(C->getArg(0))};
}

/// What an atomic's address and value read: variables, and memory by the
/// variable it is rooted at (null: unknown memory).
struct Reads {
  llvm::SmallPtrSet<const Var *, 8> Vars;
  llvm::SmallPtrSet<const Var *, 4> MemoryRoots;

  void add(const Expr *E) {
    forEachExpr(E, [&](const Expr *Sub) {
      if (const auto *R = dyn_cast<VarRefExpr>(Sub))
        Vars.insert(R->getVar());
      else if (llvm::isa<IndexExpr>(Sub))
        MemoryRoots.insert(ActivityAnalysis::getRootVar(Sub));
      else if (const auto *U = dyn_cast<UnaryExpr>(Sub)) {
        if (U->getOp() == UnaryOp::Deref)
          MemoryRoots.insert(ActivityAnalysis::getRootVar(Sub));
      } else if (const auto *C = dyn_cast<CallExpr>(Sub)) {
        if (C->getCalleeKind() == CallExpr::CalleeKind::User)
          MemoryRoots.insert(nullptr);
      }
    });
  }
  /// An atomic's address &P[i], P + i or P: reads P and i, not memory.
  void addAddress(const Expr *E) {
    if (const auto *U = dyn_cast<UnaryExpr>(E))
      if (U->getOp() == UnaryOp::AddrOf)
        if (const auto *I = dyn_cast<IndexExpr>(U->getSub()))
          if (const auto *Base = dyn_cast<VarRefExpr>(I->getBase())) {
            Vars.insert(Base->getVar());
            return add(I->getIndex());
          }
    add(E);
  }
  /// True when a write to memory rooted at \p Root (null: unknown) may
  /// change what was read. Distinct variables designate distinct memory:
  /// adjoint arrays must not alias primal arrays or each other.
  bool readsMemoryOf(const Var *Root) const {
    if (MemoryRoots.empty())
      return false;
    return !Root || MemoryRoots.count(nullptr) || MemoryRoots.count(Root);
  }
};

/// True when \p E calls a user function (which may write anything).
bool callsUser(const Expr *E) {
  bool Calls = false;
  if (E)
    forEachExpr(E, [&](const Expr *Sub) {
      const auto *C = dyn_cast<CallExpr>(Sub);
      Calls |= C && C->getCalleeKind() == CallExpr::CalleeKind::User;
    });
  return Calls;
}

/// True when \p S may change what \p R reads. Atomics to other addresses
/// only write memory.
bool interferes(const Stmt *S, const Reads &R) {
  if (std::optional<AtomicAdd> A = matchAtomic(S))
    return R.readsMemoryOf(ActivityAnalysis::getRootVar(A->Call->getArg(0)));
  if (const auto *D = dyn_cast<DeclStmt>(S))
    return R.Vars.count(D->getVar()) != 0 || callsUser(D->getInit());
  if (const auto *A = dyn_cast<AssignStmt>(S)) {
    if (callsUser(A->getRHS()))
      return true;
    const Expr *LHS = A->getLHS();
    if (const auto *Ref = dyn_cast<VarRefExpr>(LHS))
      return R.Vars.count(Ref->getVar()) != 0;
    // A store through memory (an element, a member of one, *p).
    const Var *Root = ActivityAnalysis::getRootVar(LHS);
    return R.readsMemoryOf(Root) || (Root && R.Vars.count(Root));
  }
  // Calls, control flow, launches: anything may change.
  return true;
}

/// Combines in one block (not nested ones).
unsigned combineIn(IRBuilder &B, BlockStmt *Block) {
  std::vector<const Stmt *> Body = Block->getBody();
  unsigned Removed = 0;
  for (size_t I = 0; I < Body.size(); ++I) {
    std::optional<AtomicAdd> First = Body[I] ? matchAtomic(Body[I])
                                             : std::nullopt;
    if (!First)
      continue;
    Reads R;
    R.addAddress(First->Call->getArg(0));
    R.add(First->getValue());
    for (size_t J = I + 1; J < Body.size(); ++J) {
      if (!Body[J])
        continue;
      std::optional<AtomicAdd> Next = matchAtomic(Body[J]);
      if (Next && Next->Call->getName() == First->Call->getName() &&
          Next->Address == First->Address) {
        const Type *Ty = Next->getValue()->getType();
        auto *Call = B.getModule().create<CallExpr>(
            First->Call->getType(), CallExpr::CalleeKind::Intrinsic,
            First->Call->getName(), -1,
            std::vector<const Expr *>{
                Next->Call->getArg(0),
                B.cast(Ty, B.add(First->getValue(), Next->getValue()))});
        Body[J] = B.getModule().create<ExprStmt>(Call);
        Body[I] = nullptr;
        ++Removed;
        break;
      }
      if (interferes(Body[J], R))
        break;
    }
  }
  std::vector<const Stmt *> Kept;
  for (const Stmt *S : Body)
    if (S)
      Kept.push_back(S);
  Block->setBody(std::move(Kept));
  return Removed;
}

} // namespace

unsigned meshad::combineAtomics(IRBuilder &B, const BlockStmt *Block) {
  std::vector<const BlockStmt *> Blocks;
  forEachStmt(Block, [&](const Stmt *S) {
    if (const auto *Sub = dyn_cast<BlockStmt>(S))
      Blocks.push_back(Sub);
  });
  unsigned Removed = 0;
  // The blocks are owned by the module and still being generated.
  for (const BlockStmt *Sub : Blocks)
    Removed += combineIn(B, const_cast<BlockStmt *>(Sub));
  return Removed;
}
