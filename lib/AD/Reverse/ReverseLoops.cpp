//===- AD/Reverse/ReverseLoops.cpp - Reverse mode of loops ----------------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// A loop's forward sweep counts its iterations; its reverse sweep runs the
/// reversed body that many times. A canonical counter (for (int i = a; ...;
/// i += s)) is recomputed as i = a + (k - 1) * s in the reverse sweep; other
/// variables the loop overwrites are saved per iteration on tapes when the
/// reverse sweep needs them. Inside an outer loop the trip count itself is
/// taped. Locals of a counted loop's body that depend only on values the
/// loop does not change are recomputed at the start of each reverse
/// iteration instead (AD/Analysis/Recomputation.h).
///
//===----------------------------------------------------------------------===//

#include "AD/Reverse/ReverseFunction.h"
#include "IR/Traversal.h"

using namespace meshad;
using namespace meshad::ir;
using llvm::cast;
using llvm::dyn_cast;
using llvm::dyn_cast_or_null;

namespace {
/// The pieces every reversed loop shares.
struct LoopParts {
  Var *Count = nullptr;
  BlockStmt *BodyFwd = nullptr;  ///< Without the counter increment.
  BlockStmt *IterRestore = nullptr;
  BlockStmt *BodyRev = nullptr;
  bool needsReverse() const {
    return !BodyRev->getBody().empty() || !IterRestore->getBody().empty();
  }
};
} // namespace

/// \p E as a constant, looking through casts.
static std::optional<long long> constantOf(const Expr *E) {
  while (const auto *C = dyn_cast_or_null<CastExpr>(E))
    E = C->getSub();
  if (const auto *L = dyn_cast_or_null<IntLitExpr>(E))
    return L->getValue();
  return std::nullopt;
}

/// A bound on the trip count of the canonical loop \p F (counter \p C)
/// when its start, step and bound are constants (`for (int k = 0; k < 8;
/// k += 2)`), else 0: unknown. Breaks only end it sooner.
static unsigned constantTripCount(const ForStmt &F, const CanonicalLoop &C) {
  const auto *Cond = dyn_cast_or_null<BinaryExpr>(F.getCond());
  std::optional<long long> Start = constantOf(C.Init);
  std::optional<long long> Step = C.Step ? constantOf(C.Step) : 1;
  if (!Cond || !Start || !Step || *Step <= 0)
    return 0;
  BinaryOp Op = Cond->getOp();
  const Expr *L = Cond->getLHS(), *R = Cond->getRHS();
  while (const auto *Cast = dyn_cast<CastExpr>(L))
    L = Cast->getSub();
  const auto *Ref = dyn_cast<VarRefExpr>(L);
  std::optional<long long> End = constantOf(R);
  if (!Ref || Ref->getVar() != C.Counter || !End)
    return 0;
  // An unsigned counter stepping down may wrap around past the bound.
  llvm::StringRef Spelling = C.Counter->getType()->getSpelling();
  if (C.Decrement && (Spelling.contains("unsigned") ||
                      Spelling.contains("size_t")))
    return 0;
  // The distance the counter may travel while the condition holds.
  long long Span;
  if (!C.Decrement && (Op == BinaryOp::Lt || Op == BinaryOp::Le))
    Span = *End - *Start + (Op == BinaryOp::Le ? 1 : 0);
  else if (C.Decrement && (Op == BinaryOp::Gt || Op == BinaryOp::Ge))
    Span = *Start - *End + (Op == BinaryOp::Ge ? 1 : 0);
  else
    return 0;
  long long Trips = Span <= 0 ? 0 : (Span + *Step - 1) / *Step;
  return Trips > 0 && Trips < (1LL << 30) ? unsigned(Trips) : 0;
}

const Type *ReverseFunction::tapeType(const Type *Elem, unsigned Pushes) const {
  unsigned long long Capacity = Pushes;
  for (unsigned Bound : TripBounds)
    Capacity = Bound && Capacity < (1ULL << 32) ? Capacity * Bound : 0;
  if (Capacity >= (1ULL << 32))
    Capacity = 0;
  TapePlacement Placement = TapePlacement::LocalOrHeap;
  if (Result->getTarget() == CudaTarget::HostOnly)
    Placement = TapePlacement::Heap;
  else if (Result->getTarget() != CudaTarget::HostDevice)
    Placement = TapePlacement::Local;
  return M.getTypes().getTape(Elem, unsigned(Capacity), Placement);
}

/// `++Count;` followed by the body.
static BlockStmt *countedBody(IRBuilder &B, Var *Count, BlockStmt *Body) {
  BlockStmt *Out = B.block();
  Out->append(B.assign(B.ref(Count), AssignOp::Inc, nullptr));
  for (const Stmt *S : Body->getBody())
    Out->append(S);
  return Out;
}

/// `for (; Count > 0; --Count) Body`: the reverse sweep of a loop.
static ForStmt *countdownLoop(IRBuilder &B, Module &M, Var *Count,
                              BlockStmt *Body) {
  return M.create<ForStmt>(
      nullptr, B.binary(BinaryOp::Gt, B.ref(Count), B.intLit(0)),
      B.assign(B.ref(Count), AssignOp::Dec, nullptr), Body);
}

/// The body of the loop \p S: a for, while or do statement.
static const BlockStmt *loopBody(const Stmt *S) {
  if (const auto *For = dyn_cast<ForStmt>(S))
    return For->getBody();
  if (const auto *W = dyn_cast<WhileStmt>(S))
    return W->getBody();
  return cast<DoStmt>(S)->getBody();
}

/// The loop \p S (for, while or do) with the body \p Body, a for loop
/// without its initializer.
static Stmt *loopWithBody(Module &M, const Stmt *S, BlockStmt *Body) {
  if (const auto *For = dyn_cast<ForStmt>(S))
    return M.create<ForStmt>(nullptr, For->getCond(), For->getInc(), Body);
  if (const auto *W = dyn_cast<WhileStmt>(S))
    return M.create<WhileStmt>(W->getCond(), Body);
  return M.create<DoStmt>(Body, cast<DoStmt>(S)->getCond());
}

std::vector<const DeclStmt *> ReverseFunction::neededRecomputations(
    const std::vector<const DeclStmt *> &Redo) {
  // Backwards: a recomputed value may read an earlier one (f = c ? 0.5 : l
  // needs l recomputed too, though the reverse sweep never reads l).
  llvm::SmallPtrSet<const Var *, 8> ReadByLater(ReplayReads.begin(),
                                                ReplayReads.end());
  std::vector<const DeclStmt *> Needed;
  for (auto It = Redo.rbegin(); It != Redo.rend(); ++It) {
    const DeclStmt *D = *It;
    if (!ReadByLater.count(D->getVar()) &&
        !Needs->isStoreTargetNeeded(B.ref(D->getVar())))
      continue;
    Needed.insert(Needed.begin(), D);
    forEachExpr(D->getInit(), [&](const Expr *X) {
      if (const auto *R = dyn_cast<VarRefExpr>(X))
        ReadByLater.insert(R->getVar());
    });
  }
  return Needed;
}

void ReverseFunction::sweepCanonicalFor(const ForStmt *F,
                                        const CanonicalLoop &C,
                                        BlockStmt *Fwd, BlockStmt *Rev) {
  const Type *Int = M.getTypes().getInt("int");
  BlockStmt *BodyFwd = B.block(), *BodyRev = B.block();
  // Locals that the reverse iteration recomputes rather than tapes.
  Counters.insert(C.Counter);
  std::vector<const DeclStmt *> Redo = Recompute->find(*F->getBody(), Counters);
  for (const DeclStmt *D : Redo)
    Recomputed.insert(D->getVar());
  ++LoopDepth;
  TripBounds.push_back(constantTripCount(*F, C));
  sweepBlock(F->getBody(), BodyFwd, BodyRev);
  TripBounds.pop_back();
  --LoopDepth;
  Counters.erase(C.Counter);
  const Stmt *Init = B.assign(B.ref(C.Counter), AssignOp::Assign, C.Init);
  if (BodyRev->getBody().empty()) {
    auto *Loop = M.create<ForStmt>(Init, F->getCond(), F->getInc(), BodyFwd);
    Loop->setLoc(F->getLoc());
    Fwd->append(Loop);
    return;
  }
  Var *Count = newVar("_cnt", Int, B.intLit(0));
  if (LoopDepth > 0)
    Fwd->append(B.assign(B.ref(Count), AssignOp::Assign, B.intLit(0)));
  auto *Loop = M.create<ForStmt>(Init, F->getCond(), F->getInc(),
                                 countedBody(B, Count, BodyFwd));
  Loop->setLoc(F->getLoc());
  Fwd->append(Loop);
  if (LoopDepth > 0)
    save(B.ref(Count), Fwd, Rev);
  // i = a + (k - 1) * s for the k-th iteration, counting from 1.
  const Expr *K1 = B.binary(BinaryOp::Sub, B.ref(Count), B.intLit(1));
  const Expr *Offset = C.Step ? B.mul(K1, C.Step) : K1;
  const Expr *Value = C.Decrement ? B.sub(C.Init, Offset)
                                  : B.add(C.Init, Offset);
  BlockStmt *RevBody = B.block();
  RevBody->append(B.assign(B.ref(C.Counter), AssignOp::Assign,
                           B.cast(C.Counter->getType(), Value)));
  for (const DeclStmt *D : neededRecomputations(Redo))
    RevBody->append(
        B.assign(B.ref(D->getVar()), AssignOp::Assign, D->getInit()));
  for (const Stmt *S : BodyRev->getBody())
    RevBody->append(S);
  Rev->append(countdownLoop(B, M, Count, RevBody));
}

void ReverseFunction::sweepLoop(const Stmt *S, BlockStmt *Fwd,
                                BlockStmt *Rev) {
  const auto *For = dyn_cast<ForStmt>(S);
  if (For)
    if (std::optional<CanonicalLoop> C = ReverseNeeds::matchCanonical(*For))
      return sweepCanonicalFor(For, *C, Fwd, Rev);

  // The initializer runs once, before the loop.
  BlockStmt *InitRev = B.block();
  if (For && For->getInit())
    sweepStmt(For->getInit(), Fwd, InitRev);

  LoopParts P;
  P.BodyFwd = B.block();
  P.IterRestore = B.block();
  P.BodyRev = B.block();
  ++LoopDepth;
  TripBounds.push_back(0);
  // The increment's target is saved at the start of each iteration: the
  // reverse iteration restores it first.
  if (For && For->getInc()) {
    const auto *Inc = cast<AssignStmt>(For->getInc());
    if (needsSave(Inc->getLHS(), false))
      save(Inc->getLHS(), P.BodyFwd, P.IterRestore);
  }
  sweepBlock(loopBody(S), P.BodyFwd, P.BodyRev);
  TripBounds.pop_back();
  --LoopDepth;

  BlockStmt *FwdBody = P.BodyFwd;
  if (P.needsReverse()) {
    P.Count = newVar("_cnt", M.getTypes().getInt("int"), B.intLit(0));
    if (LoopDepth > 0)
      Fwd->append(B.assign(B.ref(P.Count), AssignOp::Assign, B.intLit(0)));
    FwdBody = countedBody(B, P.Count, P.BodyFwd);
  }
  Stmt *Loop = loopWithBody(M, S, FwdBody);
  Loop->setLoc(S->getLoc());
  Fwd->append(Loop);

  if (P.needsReverse()) {
    if (LoopDepth > 0)
      save(B.ref(P.Count), Fwd, Rev);
    BlockStmt *RevBody = B.block();
    for (BlockStmt *Part : {P.IterRestore, P.BodyRev})
      for (const Stmt *St : Part->getBody())
        RevBody->append(St);
    Rev->append(countdownLoop(B, M, P.Count, RevBody));
  }
  for (const Stmt *St : InitRev->getBody())
    Rev->append(St);
}

void ReverseFunction::addReplayReads(const Expr *E) {
  forEachExpr(E, [&](const Expr *X) {
    if (const auto *R = dyn_cast<VarRefExpr>(X))
      ReplayReads.insert(R->getVar());
  });
}

bool ReverseFunction::isRecomputable(const Expr *E) const {
  if (Counters.empty())
    return false;
  llvm::SmallPtrSet<const Var *, 16> Known(Counters.begin(), Counters.end());
  Known.insert(Recomputed.begin(), Recomputed.end());
  return Recompute->isStable(E, Known);
}

/// True when \p S names \p V (reads, writes or declares it).
static bool mentions(const Stmt *S, const Var *V) {
  bool Found = false;
  forEachStmt(S, [&](const Stmt *Sub) {
    if (const auto *D = dyn_cast<DeclStmt>(Sub))
      Found |= D->getVar() == V;
    for (const Expr *E : ownExprs(Sub))
      forEachExpr(E, [&](const Expr *X) {
        if (const auto *R = dyn_cast<VarRefExpr>(X))
          Found |= R->getVar() == V;
      });
  });
  return Found;
}

/// True when \p S may change \p V: assigns it (at any depth) or takes its
/// address.
static bool mayWrite(const Stmt *S, const Var *V) {
  bool Writes = false;
  forEachStmt(S, [&](const Stmt *Sub) {
    if (const auto *A = dyn_cast<AssignStmt>(Sub))
      Writes |= ActivityAnalysis::getRootVar(A->getLHS()) == V;
    if (const auto *D = dyn_cast<DeclStmt>(Sub))
      Writes |= D->getVar() == V;
    for (const Expr *E : ownExprs(Sub))
      forEachExpr(E, [&](const Expr *X) {
        const auto *U = dyn_cast<UnaryExpr>(X);
        if (U && U->getOp() == UnaryOp::AddrOf)
          Writes |= ActivityAnalysis::getRootVar(U->getSub()) == V;
      });
  });
  return Writes;
}

/// The index of the one statement of \p Body after \p Pos that assigns the
/// local \p V, at the block's top level (Body.size() if none); nullopt when
/// V is assigned twice there or changed inside a nested statement.
static std::optional<int> lastWrite(const std::vector<const Stmt *> &Body,
                                    size_t Pos, const Var *V) {
  int Write = int(Body.size());
  unsigned Writes = 0;
  for (size_t J = Pos + 1; J < Body.size(); ++J) {
    const auto *A = dyn_cast<AssignStmt>(Body[J]);
    const auto *R = A ? dyn_cast<VarRefExpr>(A->getLHS()) : nullptr;
    if (R && R->getVar() == V) {
      ++Writes;
      Write = int(J);
    } else if (mayWrite(Body[J], V)) {
      return std::nullopt;
    }
  }
  if (Writes > 1)
    return std::nullopt;
  return Write;
}

std::optional<int> ReverseFunction::recomputePoint(
    const BlockStmt *In, size_t Pos,
    const llvm::DenseMap<const Var *, int> &Late) {
  const std::vector<const Stmt *> &Body = In->getBody();
  const auto *D = cast<DeclStmt>(Body[Pos]);
  const Var *V = D->getVar();
  if (V->getType()->isIndexable() || !Recompute->isAssignedOnce(V))
    return std::nullopt;
  int N = int(Body.size()), At = N;
  llvm::SmallPtrSet<const Var *, 16> Known(Counters.begin(), Counters.end());
  Known.insert(Recomputed.begin(), Recomputed.end());
  bool Ok = true;
  forEachExpr(D->getInit(), [&](const Expr *X) {
    const auto *R = dyn_cast<VarRefExpr>(X);
    if (!R || !Ok)
      return;
    const Var *W = R->getVar();
    auto L = Late.find(W);
    if (L != Late.end()) {
      At = std::min(At, L->second);
      return;
    }
    if (Known.count(W) || Recompute->isStable(R, Known))
      return;
    // A local the reverse sweep restores: recomputed once it is restored.
    std::optional<int> Write = lastWrite(Body, Pos, W);
    Ok = Write && !W->getType()->isIndexable() && !W->isGlobal() &&
         !W->isShared() && Needs->isNeeded(W);
    if (Ok)
      At = std::min(At, *Write);
    Known.insert(W);
  });
  // Memory read-only, calls pure; nothing at or after the point reads V.
  if (!Ok || !Recompute->isStable(D->getInit(), Known))
    return std::nullopt;
  for (int J = std::max(int(Pos) + 1, At); J < N; ++J)
    if (mentions(Body[J], V))
      return std::nullopt;
  return At;
}

std::vector<ReverseFunction::LateRecomputation>
ReverseFunction::lateRecomputations(const BlockStmt *In) {
  std::vector<LateRecomputation> Out;
  if (Counters.empty() || LoopDepth == 0)
    return Out;
  llvm::DenseMap<const Var *, int> Late;
  const std::vector<const Stmt *> &Body = In->getBody();
  for (size_t P = 0; P < Body.size(); ++P) {
    const auto *D = dyn_cast<DeclStmt>(Body[P]);
    if (!D || !D->getInit() || Recomputed.count(D->getVar()) ||
        !Needs->isStoreTargetNeeded(B.ref(D->getVar())))
      continue;
    std::optional<int> At = recomputePoint(In, P, Late);
    if (!At)
      continue;
    Late[D->getVar()] = *At;
    Recomputed.insert(D->getVar());
    addReplayReads(D->getInit());
    Out.push_back({D, *At == int(Body.size()) ? -1 : *At});
  }
  return Out;
}
