//===- GPU/SlotStores.cpp - Plain stores into two-phase slots -------------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//

#include "GPU/SlotStores.h"
#include "Analysis/IRWalk.h"
#include "Analysis/IntegerPaths.h"
#include "IR/Clone.h"

#include <cstring>

using namespace meshad;
using namespace meshad::ir;
using llvm::dyn_cast;

namespace {

const char *const SlotAdd = "meshad::slotAdd<";

/// The slotAdd call of \p S, if it is one (into \p Slots when given).
const CallExpr *slotAddOf(const Stmt *S, const Var *Slots = nullptr) {
  const auto *ES = dyn_cast<ExprStmt>(S);
  const auto *C = ES ? dyn_cast<CallExpr>(ES->getExpr()) : nullptr;
  if (!C || !llvm::StringRef(C->getName()).starts_with(SlotAdd) ||
      C->getNumArgs() != 6)
    return nullptr;
  const auto *Into = dyn_cast<VarRefExpr>(C->getArg(0));
  return !Slots || (Into && Into->getVar() == Slots) ? C : nullptr;
}

/// Counts, per path, the writes of each slot (j, k) of the element.
class SlotWrites : public IntegerPaths {
public:
  SlotWrites(const Function &F, const SlotRequest &R, const std::string &Array,
             const Var *Slots, bool GridStride)
      : IntegerPaths(F), R(R), Array(Array), Slots(Slots),
        GridStride(GridStride) {
    setElementLoops(GridStride);
  }

private:
  std::string slot(std::pair<long long, long long> JK) const {
    return "component " + std::to_string(JK.second) + " of local vertex " +
           std::to_string(JK.first) + " of '" + Array + "'";
  }
  bool watches(const Stmt *S) const override { return slotAddOf(S, Slots); }
  bool visit(const Stmt *S, PathState &P) override;
  bool finish(const PathState &P) override;
  bool finishElement(const PathState &P) override;

  const SlotRequest &R;
  const std::string &Array;
  /// The slot buffer whose adds are counted (null: all).
  const Var *Slots;
  /// Several elements per thread: the slots are written in the loop over
  /// them, checked per iteration (finishElement), none outside it.
  bool GridStride;
};

bool SlotWrites::visit(const Stmt *S, PathState &P) {
  const CallExpr *C = slotAddOf(S, Slots);
  if (!C)
    return true;
  PathValue T = eval(C->getArg(2), P), Pos = eval(C->getArg(3), P),
            K = eval(C->getArg(4), P);
  bool Known = T.K == PathValue::Affine && T.A == 1 && T.B == 0 &&
               Pos.K == PathValue::Affine && Pos.A == R.Arity &&
               Pos.B >= 0 && Pos.B < R.Arity && K.isConstant() && K.B >= 0 &&
               K.B < R.Stride;
  if (!Known)
    return fail("the slot of this add (" + irwalk::spell(C->getArg(3)) +
                    ", component " + irwalk::spell(C->getArg(4)) +
                    ") is not known on one path",
                S->getLoc());
  std::pair<long long, long long> JK{Pos.B, K.B};
  if (P.Counts[JK]++)
    return fail(slot(JK) + " is added to a second time here on one path",
                S->getLoc());
  P.FirstAt[JK] = S;
  return true;
}

bool SlotWrites::finish(const PathState &P) {
  if (!GridStride)
    return finishElement(P);
  if (!P.Counts.empty())
    return fail("a slot is written outside the loop over the thread's "
                "elements",
                P.FirstAt.begin()->second->getLoc());
  return true;
}

bool SlotWrites::finishElement(const PathState &P) {
  if (P.InRange == 0) {
    if (!P.Counts.empty())
      return fail("a thread without an element (t >= n) writes a slot",
                  P.FirstAt.begin()->second->getLoc());
    return true;
  }
  for (long long J = 0; J < R.Arity; ++J)
    for (long long K = 0; K < R.Stride; ++K) {
      if (P.Counts.count({J, K}))
        continue;
      if (P.LastBranch)
        return fail(slot({J, K}) + " is not written on every path (one "
                                   "side of this branch skips it)",
                    P.LastBranch->getLoc());
      return fail(slot({J, K}) + " is never written", F.getLoc());
    }
  return true;
}

/// The element id of the slot adds of \p F, when it is one variable
/// assigned once outside loops, or (\p GridStride) a counter of the loop
/// that visits each element below the count once (\p R).
const Var *elementOf(const Function &F, const SlotRequest &R, bool &GridStride,
                     std::string &Why) {
  const Var *T = nullptr;
  forEachStmt(F.getBody(), [&](const Stmt *S) {
    const CallExpr *C = slotAddOf(S);
    const auto *Ref = C ? dyn_cast<VarRefExpr>(C->getArg(2)) : nullptr;
    if (C && (!Ref || (T && T != Ref->getVar())))
      Why = "the slot adds name different element ids";
    if (Ref && !T)
      T = Ref->getVar();
  });
  if (!T && Why.empty())
    Why = "no slot adds";
  if (!Why.empty())
    return nullptr;
  auto IsDef = [&](const Stmt *S) {
    const auto *A = dyn_cast<AssignStmt>(S);
    const auto *Ref = A ? dyn_cast<VarRefExpr>(A->getLHS()) : nullptr;
    const auto *D = dyn_cast<DeclStmt>(S);
    return (Ref && Ref->getVar() == T) ||
           (D && D->getVar() == T && D->getInit());
  };
  unsigned Defs = 0;
  bool InLoop = false, Exits = false;
  forEachStmt(F.getBody(), [&](const Stmt *S) {
    Defs += IsDef(S);
    if (!llvm::isa<ForStmt>(S) && !llvm::isa<WhileStmt>(S) &&
        !llvm::isa<DoStmt>(S))
      return;
    bool Assigns = false, Jumps = false;
    forEachStmt(S, [&](const Stmt *X) {
      Assigns |= IsDef(X);
      Jumps |= llvm::isa<BreakStmt>(X) || llvm::isa<ReturnStmt>(X);
    });
    InLoop |= Assigns;
    Exits |= Assigns && Jumps;
  });
  // A loop over the elements that may stop early leaves elements unvisited.
  if (InLoop && R.GridStrideCount && Exits)
    Why = "a break or return in the loop over the thread's elements '" +
          T->getName() + "'";
  GridStride = InLoop && R.GridStrideCount && !Exits;
  if ((Defs != 1 || InLoop) && !GridStride && Why.empty())
    Why = "the element id '" + T->getName() +
          "' is a loop counter, and the element count is not the bound of "
          "a grid-stride loop over the elements";
  return Why.empty() ? T : nullptr;
}

} // namespace

SlotStoreProof meshad::proveSlotStores(const Function &F, const SlotRequest &R,
                                       const std::string &Array,
                                       const Var *Slots) {
  SlotStoreProof Out;
  bool GridStride = false;
  const Var *T = elementOf(F, R, GridStride, Out.WhyNot);
  if (!T) {
    Out.Where = F.getLoc();
    return Out;
  }
  const Expr *Count = nullptr;
  forEachStmt(F.getBody(), [&](const Stmt *S) {
    if (const CallExpr *C = slotAddOf(S, Slots))
      Count = C->getArg(1);
  });
  SlotWrites Walk(F, R, Array, Slots, GridStride);
  Walk.setElement(T, Count);
  Out.Proven = Walk.run();
  Out.EveryLaunchCovers = Out.Proven && GridStride;
  Out.WhyNot = Walk.whyNot();
  Out.Where = Walk.whereNot();
  return Out;
}

void meshad::useSlotStores(IRBuilder &B, Function &F) {
  Module &M = B.getModule();
  IRCloner C(M);
  C.setStmtHook([&](const Stmt *S) -> std::optional<const Stmt *> {
    const CallExpr *Add = slotAddOf(S);
    if (!Add)
      return std::nullopt;
    std::string Name = "meshad::slotStore<" +
                       Add->getName().substr(std::strlen(SlotAdd));
    std::vector<const Expr *> Args = Add->getArgs();
    Stmt *Out = M.create<ExprStmt>(M.create<CallExpr>(
        Add->getType(), CallExpr::CalleeKind::Intrinsic, Name, -1,
        std::move(Args)));
    Out->setLoc(S->getLoc());
    return Out;
  });
  F.setBody(C.cloneBlock(F.getBody()));
}
