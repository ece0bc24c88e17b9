//===- GPU/AtomicCombiner.cpp - One atomic per address --------------------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//

#include "GPU/AtomicCombiner.h"
#include "AD/Analysis/Activity.h"
#include "Emit/CudaEmitter.h"
#include "IR/Intrinsics.h"
#include "IR/Traversal.h"

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringRef.h"

#include <string>

using namespace meshad;
using namespace meshad::ir;
using llvm::cast;
using llvm::dyn_cast;

namespace {

/// An adjoint accumulation statement: `atomicAdd(&a[i], v);` (or
/// warpAtomicAdd, atomicAccumulate), `meshad::tileAdd<...>(t, a, i, v);`,
/// or a plain `a[i] += v;`.
struct Accumulation {
  const Stmt *S = nullptr;
  /// Statements with equal keys add to the same element in the same way.
  std::string Key;
  /// The arguments or target that designate the element.
  std::vector<const Expr *> Target;
  const Expr *Value = nullptr;
  /// The variable whose memory it writes.
  const Var *Root = nullptr;

  /// The same accumulation of \p NewValue.
  const Stmt *rebuild(IRBuilder &B, const Expr *NewValue) const {
    if (const auto *A = dyn_cast<AssignStmt>(S))
      return B.assign(A->getLHS(), AssignOp::AddAssign, NewValue);
    const auto *C = cast<CallExpr>(cast<ExprStmt>(S)->getExpr());
    std::vector<const Expr *> Args = Target;
    Args.push_back(NewValue);
    return B.getModule().create<ExprStmt>(B.getModule().create<CallExpr>(
        C->getType(), CallExpr::CalleeKind::Intrinsic, C->getName(), -1,
        Args));
  }
};

/// The accumulation that \p S is, if it is one.
std::optional<Accumulation> matchAccumulation(const Stmt *S) {
  Accumulation A;
  A.S = S;
  if (const auto *Assign = dyn_cast<AssignStmt>(S)) {
    const Expr *LHS = Assign->getLHS();
    if (Assign->getOp() != AssignOp::AddAssign || llvm::isa<VarRefExpr>(LHS) ||
        !LHS->getType()->isFloatingScalar())
      return std::nullopt;
    A.Key = "+= " + CudaEmitter::emitExpr(LHS);
    A.Target = {LHS};
    A.Value = Assign->getRHS();
    A.Root = ActivityAnalysis::getRootVar(LHS);
    return A;
  }
  const auto *ES = dyn_cast<ExprStmt>(S);
  const auto *C = ES ? dyn_cast<CallExpr>(ES->getExpr()) : nullptr;
  if (!C || C->getCalleeKind() != CallExpr::CalleeKind::Intrinsic)
    return std::nullopt;
  llvm::StringRef Name = C->getName();
  // Adds of a value to an address (atomicAdd, meshad::warpAtomicAdd,
  // meshad::atomicAccumulate, meshad::tileAdd), not block reductions.
  const IntrinsicInfo *I = lookupIntrinsic(C);
  if (!I || !I->accumulates() || I->isBarrier() ||
      !I->acceptsArgs(C->getNumArgs()) ||
      I->ValueArg != int(C->getNumArgs()) - 1)
    return std::nullopt;
  A.Target.assign(C->getArgs().begin(), C->getArgs().end() - 1);
  A.Value = C->getArgs().back();
  A.Key = Name.str();
  for (const Expr *E : A.Target)
    A.Key += "|" + CudaEmitter::emitExpr(E);
  // A tile add writes the tile and, when the block is too wide, the array.
  A.Root = ActivityAnalysis::getRootVar(C->getArg(I->AddrArg));
  return A;
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
  /// An accumulation's target (&P[i], P + i, P, P[i], a tile and an
  /// index): reads P and i, not the element.
  void addTarget(const Expr *E) {
    if (const auto *I = dyn_cast<IndexExpr>(E))
      if (const auto *Base = dyn_cast<VarRefExpr>(I->getBase())) {
        Vars.insert(Base->getVar());
        return add(I->getIndex());
      }
    if (const auto *R = dyn_cast<VarRefExpr>(E))
      return (void)Vars.insert(R->getVar());
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

/// What \p S reads, not counting the element that an accumulation or a
/// plain store writes.
Reads readsOf(const Stmt *S) {
  Reads R;
  if (std::optional<Accumulation> A = matchAccumulation(S)) {
    for (const Expr *T : A->Target)
      R.addTarget(T);
    R.add(A->Value);
    return R;
  }
  const auto *Assign = dyn_cast<AssignStmt>(S);
  for (const Expr *E : ownExprs(S)) {
    if (Assign && Assign->getOp() == AssignOp::Assign && E == Assign->getLHS())
      R.addTarget(E);
    else
      R.add(E);
  }
  return R;
}

/// True when \p S may change what \p R reads, or reads the memory that
/// \p First adds to. Adds to the same memory commute, so accumulations only
/// interfere through what they read.
bool interferes(const Stmt *S, const Reads &R, const Accumulation &First) {
  if (std::optional<Accumulation> A = matchAccumulation(S))
    return R.readsMemoryOf(A->Root) || readsOf(S).readsMemoryOf(First.Root);
  if (readsOf(S).readsMemoryOf(First.Root))
    return true;
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
    return R.readsMemoryOf(Root) || (Root && R.Vars.count(Root)) ||
           Root == First.Root;
  }
  // Calls, control flow, launches: anything may change.
  return true;
}

/// Combines in one block (not nested ones) the accumulations that \p Only
/// accepts (all without it).
unsigned combineIn(IRBuilder &B, BlockStmt *Block,
                   llvm::function_ref<bool(const Stmt *)> Only) {
  std::vector<const Stmt *> Body = Block->getBody();
  unsigned Removed = 0;
  llvm::SmallPtrSet<const Stmt *, 8> Combined; // Accepted: made of accepted.
  auto Candidate = [&](const Stmt *S) -> std::optional<Accumulation> {
    if (!S || (Only && !Only(S) && !Combined.count(S)))
      return std::nullopt;
    return matchAccumulation(S);
  };
  for (size_t I = 0; I < Body.size(); ++I) {
    std::optional<Accumulation> First = Candidate(Body[I]);
    if (!First)
      continue;
    Reads R = readsOf(Body[I]);
    for (size_t J = I + 1; J < Body.size(); ++J) {
      if (!Body[J])
        continue;
      std::optional<Accumulation> Next = Candidate(Body[J]);
      if (Next && Next->Key == First->Key) {
        const Type *Ty = Next->Value->getType();
        Body[J] = Next->rebuild(B, B.cast(Ty, B.add(First->Value, Next->Value)));
        Combined.insert(Body[J]);
        Body[I] = nullptr;
        ++Removed;
        break;
      }
      if (interferes(Body[J], R, *First))
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

unsigned meshad::combineAtomics(IRBuilder &B, const BlockStmt *Block,
                                llvm::function_ref<bool(const Stmt *)> Only) {
  std::vector<const BlockStmt *> Blocks;
  forEachStmt(Block, [&](const Stmt *S) {
    if (const auto *Sub = dyn_cast<BlockStmt>(S))
      Blocks.push_back(Sub);
  });
  unsigned Removed = 0;
  // The blocks are owned by the module and still being generated.
  for (const BlockStmt *Sub : Blocks)
    Removed += combineIn(B, const_cast<BlockStmt *>(Sub), Only);
  return Removed;
}
