//===- Analysis/SweepDefs.cpp - Locals a reverse sweep reassigns ----------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//

#include "Analysis/SweepDefs.h"
#include "AD/Analysis/Activity.h"
#include "Analysis/IRWalk.h"
#include "Analysis/IndexForms.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"

#include <algorithm>

using namespace meshad;
using namespace meshad::ir;
using namespace meshad::ownership;
using llvm::cast;
using llvm::dyn_cast;
using llvm::dyn_cast_or_null;
using llvm::isa;

SweepDefs::SweepDefs(const Function &F) {
  if (!F.getBody())
    return;
  const auto &Top = F.getBody()->getBody();
  for (unsigned I = 0; I < Top.size(); ++I) {
    Place At;
    At.Top = I;
    At.IsTop = true;
    walkStmt(Top[I], At);
  }
  for (const auto &Entry : Defs)
    if (std::optional<CountedLoop> L = matchCounted(Entry.first)) {
      TripCounters.insert(L->Trips);
      Counted[Entry.first] = std::move(*L);
    }
}

void SweepDefs::walkStmt(const Stmt *S, const Place &At) {
  if (!S)
    return;
  noteReads(S, At);
  if (const auto *D = dyn_cast<DeclStmt>(S); D && D->getInit())
    Defs[D->getVar()].push_back({S, At});
  if (const auto *A = dyn_cast<AssignStmt>(S))
    if (const Var *V = ActivityAnalysis::getRootVar(A->getLHS()))
      Defs[V].push_back({S, At});
  Place In = At;
  In.IsTop = false;
  In.Direct = false;
  switch (S->getKind()) {
  case Stmt::Kind::Block: {
    const auto &Body = cast<BlockStmt>(S)->getBody();
    for (unsigned I = 0; I < Body.size(); ++I) {
      Positions[Body[I]] = {cast<BlockStmt>(S), I};
      walkStmt(Body[I], In);
    }
    return;
  }
  case Stmt::Kind::If: {
    const auto *If = cast<IfStmt>(S);
    if (At.IsTop) {
      walkBranch(If, true, At);
      return walkBranch(If, false, At);
    }
    walkStmt(If->getThen(), In);
    return walkStmt(If->getElse(), In);
  }
  case Stmt::Kind::For: {
    const auto *For = cast<ForStmt>(S);
    LoopPlaces[For] = At;
    LoopInits[For->getInit()] = For;
    LoopIncs[For->getInc()] = For;
    if (reverseCounter(For) && !For->getBody()->getBody().empty())
      FirstOfReverse[For->getBody()->getBody().front()] = For;
    In.Loops.push_back(S);
    walkStmt(For->getInit(), In);
    walkStmt(For->getInc(), In);
    return walkStmt(For->getBody(), In);
  }
  case Stmt::Kind::While:
    In.Loops.push_back(S);
    return walkStmt(cast<WhileStmt>(S)->getBody(), In);
  case Stmt::Kind::Do:
    In.Loops.push_back(S);
    return walkStmt(cast<DoStmt>(S)->getBody(), In);
  default:
    return;
  }
}

void SweepDefs::walkBranch(const IfStmt *If, bool Then, const Place &At) {
  const BlockStmt *B = Then ? If->getThen() : If->getElse();
  if (!B)
    return;
  const auto &Body = B->getBody();
  for (unsigned I = 0; I < Body.size(); ++I) {
    Place In = At;
    In.IsTop = false;
    In.TopIf = If;
    In.Then = Then;
    In.InBranch = I;
    In.Direct = true;
    Positions[Body[I]] = {B, I};
    walkStmt(Body[I], In);
  }
}

void SweepDefs::noteReads(const Stmt *S, const Place &At) {
  const auto *A = dyn_cast<AssignStmt>(S);
  for (const Expr *E : irwalk::ownExprs(S)) {
    // `v = e` does not read v; `v += e`, `++v` do.
    if (A && E == A->getLHS() && isa<VarRefExpr>(E) &&
        A->getOp() == AssignOp::Assign)
      continue;
    irwalk::forEachExpr(E, [&](const Expr *Sub) {
      if (const auto *R = dyn_cast<VarRefExpr>(Sub))
        Reads[R->getVar()].push_back({S, At});
      const auto *U = dyn_cast<UnaryExpr>(Sub);
      if (U && U->getOp() == UnaryOp::AddrOf)
        if (const Var *Root = ActivityAnalysis::getRootVar(U->getSub()))
          AddressTaken[Root] = true;
    });
  }
}

bool SweepDefs::isPlainLocal(const Var *V) const {
  return V && !V->isParam() && V->getStorage() == Var::Storage::Local &&
         V->getType()->isIntegral() && !AddressTaken.count(V);
}

bool SweepDefs::isAssignedOnceBefore(const Var *V, unsigned Top) const {
  auto It = Defs.find(V);
  if (!isPlainLocal(V) || It == Defs.end() || It->second.size() != 1)
    return false;
  const Site &D = It->second.front();
  return D.At.IsTop && D.At.Top < Top;
}

std::pair<const Var *, bool> SweepDefs::guardOf(const Expr *Cond,
                                                bool Then) const {
  bool Holds = Then;
  const auto *U = dyn_cast<UnaryExpr>(Cond);
  for (; U && U->getOp() == UnaryOp::Not; U = dyn_cast<UnaryExpr>(Cond)) {
    Cond = U->getSub();
    Holds = !Holds;
  }
  const auto *R = dyn_cast<VarRefExpr>(Cond);
  return {R ? R->getVar() : nullptr, Holds};
}

const Expr *SweepDefs::guardedValue(const Var *V) const {
  auto It = Defs.find(V);
  if (!isPlainLocal(V) || It == Defs.end() || It->second.size() != 1)
    return nullptr;
  const Site &D = It->second.front();
  const auto *A = dyn_cast<AssignStmt>(D.S);
  if (!A || A->getOp() != AssignOp::Assign || !isa<VarRefExpr>(A->getLHS()) ||
      !D.At.TopIf || !D.At.Direct || !D.At.Loops.empty())
    return nullptr;
  auto [Guard, Holds] = guardOf(D.At.TopIf->getCond(), D.At.Then);
  if (!Guard || !isAssignedOnceBefore(Guard, D.At.Top))
    return nullptr;
  auto R = Reads.find(V);
  if (R == Reads.end())
    return nullptr;
  for (const Site &Use : R->second) {
    if (!Use.At.TopIf)
      return nullptr;
    if (Use.At.TopIf == D.At.TopIf) {
      if (Use.At.Then != D.At.Then || Use.At.InBranch <= D.At.InBranch)
        return nullptr;
      continue;
    }
    if (Use.At.Top <= D.At.Top ||
        guardOf(Use.At.TopIf->getCond(), Use.At.Then) !=
            std::make_pair(Guard, Holds))
      return nullptr;
  }
  return A->getRHS();
}

const Var *SweepDefs::reverseCounter(const Stmt *S) {
  const auto *For = dyn_cast_or_null<ForStmt>(S);
  if (!For || For->getInit())
    return nullptr;
  const auto *Cond = dyn_cast_or_null<BinaryExpr>(For->getCond());
  const auto *Inc = dyn_cast_or_null<AssignStmt>(For->getInc());
  if (!Cond || Cond->getOp() != BinaryOp::Gt || !Inc ||
      Inc->getOp() != AssignOp::Dec)
    return nullptr;
  const auto *C = dyn_cast<VarRefExpr>(Cond->getLHS());
  const auto *Zero = dyn_cast<IntLitExpr>(Cond->getRHS());
  const auto *Target = dyn_cast<VarRefExpr>(Inc->getLHS());
  if (!C || !Zero || Zero->getValue() != 0 || !Target ||
      Target->getVar() != C->getVar())
    return nullptr;
  return C->getVar();
}

const CountedLoop *SweepDefs::countedLoop(const Var *V) const {
  auto It = Counted.find(V);
  return It == Counted.end() ? nullptr : &It->second;
}

bool SweepDefs::countsTrips(const Var *V) const {
  return TripCounters.count(V);
}

bool SweepDefs::addCounterDef(const Site &D, CountedLoop &L,
                              std::vector<const Stmt *> &Reverse) const {
  const auto *A = dyn_cast<AssignStmt>(D.S);
  if (!A || !isa<VarRefExpr>(A->getLHS()))
    return false;
  if (auto It = LoopInits.find(D.S); It != LoopInits.end()) {
    if (L.For && L.For != It->second)
      return false;
    L.For = It->second;
    L.Init = A->getRHS();
    return A->getOp() == AssignOp::Assign;
  }
  if (auto It = LoopIncs.find(D.S); It != LoopIncs.end()) {
    if (L.For && L.For != It->second)
      return false;
    L.For = It->second;
    AssignOp Op = A->getOp();
    L.Decrement = Op == AssignOp::Dec || Op == AssignOp::SubAssign;
    if (Op == AssignOp::AddAssign || Op == AssignOp::SubAssign)
      L.Step = A->getRHS();
    return Op == AssignOp::Inc || Op == AssignOp::Dec || L.Step;
  }
  auto It = FirstOfReverse.find(D.S);
  if (It == FirstOfReverse.end() || A->getOp() != AssignOp::Assign)
    return false;
  const Var *C = reverseCounter(It->second);
  if (L.Trips && L.Trips != C)
    return false;
  L.Trips = C;
  L.Recomputed.push_back(A->getRHS());
  Reverse.push_back(It->second);
  return true;
}

std::optional<CountedLoop> SweepDefs::matchCounted(const Var *V) const {
  if (!isPlainLocal(V))
    return std::nullopt;
  CountedLoop L;
  std::vector<const Stmt *> Reverse;
  for (const Site &D : Defs.find(V)->second)
    if (!addCounterDef(D, L, Reverse))
      return std::nullopt;
  // The loop's increment must step V itself.
  const auto *Inc = L.For ? dyn_cast_or_null<AssignStmt>(L.For->getInc())
                          : nullptr;
  if (!Inc || ActivityAnalysis::getRootVar(Inc->getLHS()) != V || !L.Init ||
      Reverse.empty() || !isTripCounter(L.Trips, L.For))
    return std::nullopt;
  L.InLoop = !LoopPlaces.at(L.For).Loops.empty();
  // The reverse loops run after the forward one, not inside it.
  for (const Stmt *Rev : Reverse)
    if (llvm::is_contained(LoopPlaces.at(cast<ForStmt>(Rev)).Loops, L.For))
      return std::nullopt;
  L.Counter = cast<VarRefExpr>(cast<AssignStmt>(L.For->getInit())->getLHS())
                  ->getVar();
  if (!readsInLoops(L, Reverse))
    return std::nullopt;
  return L;
}

/// True when \p E is the integer literal 0.
static bool isZero(const Expr *E) {
  const auto *Lit = dyn_cast_or_null<IntLitExpr>(E);
  return Lit && Lit->getValue() == 0;
}

/// The tape of `meshad::pop(T)` or `meshad::push(T, v)` (\p Name), or null.
static const Var *tapeOf(const Expr *E, llvm::StringRef Name) {
  const auto *Call = dyn_cast_or_null<CallExpr>(E);
  if (!Call || Call->getCalleeKind() == CallExpr::CalleeKind::User ||
      Call->getName() != Name || Call->getNumArgs() == 0)
    return nullptr;
  const auto *Tape = dyn_cast<VarRefExpr>(Call->getArg(0));
  return Tape ? Tape->getVar() : nullptr;
}

bool SweepDefs::isPopOfCounts(const Expr *E, const Var *C) const {
  const Var *Tape = tapeOf(E, "meshad::pop");
  auto R = Tape ? Reads.find(Tape) : Reads.end();
  if (R == Reads.end() || AddressTaken.count(Tape))
    return false;
  // The tape holds only values of C: `meshad::push(T, C)`, `C = pop(T)`.
  return llvm::all_of(R->second, [&](const Site &Use) {
    if (const auto *X = dyn_cast<ExprStmt>(Use.S)) {
      const auto *Push = dyn_cast<CallExpr>(X->getExpr());
      const auto *V = Push && Push->getNumArgs() == 2
                          ? dyn_cast<VarRefExpr>(Push->getArg(1))
                          : nullptr;
      return tapeOf(Push, "meshad::push") == Tape && V && V->getVar() == C;
    }
    const auto *A = dyn_cast<AssignStmt>(Use.S);
    const auto *Target = A ? dyn_cast<VarRefExpr>(A->getLHS()) : nullptr;
    return Target && Target->getVar() == C &&
           tapeOf(A->getRHS(), "meshad::pop") == Tape;
  });
}

bool SweepDefs::precedes(const Stmt *S, const Stmt *Next) const {
  auto A = Positions.find(S), B = Positions.find(Next);
  return A != Positions.end() && B != Positions.end() &&
         A->second.first == B->second.first &&
         A->second.second + 1 == B->second.second;
}

bool SweepDefs::isTripCounter(const Var *C, const ForStmt *For) const {
  auto It = Defs.find(C);
  if (!isPlainLocal(C) || It == Defs.end())
    return false;
  // C counts one run of For from 0 (its declaration's value, or a reset
  // just before For when For is in a loop); a pop gives back a value
  // pushed from C; the reverse loops count it down to 0. So 0 <= C <= the
  // trip count of a run wherever it is read.
  unsigned Starts = 0, Resets = 0, Counts = 0;
  for (const Site &D : It->second) {
    if (const auto *Decl = dyn_cast<DeclStmt>(D.S)) {
      if (!isZero(Decl->getInit()) || !D.At.Loops.empty())
        return false;
      ++Starts;
      continue;
    }
    const auto *A = cast<AssignStmt>(D.S);
    auto Inc = LoopIncs.find(D.S);
    if (A->getOp() == AssignOp::Inc &&
        llvm::is_contained(For->getBody()->getBody(), D.S))
      ++Counts;
    else if (A->getOp() == AssignOp::Assign && isZero(A->getRHS()) &&
             precedes(D.S, For))
      ++Resets;
    else if (!(A->getOp() == AssignOp::Assign &&
               isPopOfCounts(A->getRHS(), C)) &&
             !(A->getOp() == AssignOp::Dec && Inc != LoopIncs.end() &&
               reverseCounter(Inc->second) == C))
      return false;
  }
  bool InLoop = !LoopPlaces.at(For).Loops.empty();
  return Starts == 1 && Counts == 1 && (!InLoop || Resets == 1);
}

bool SweepDefs::readsInLoops(const CountedLoop &L,
                             const std::vector<const Stmt *> &Reverse) const {
  auto R = Reads.find(L.Counter);
  if (R == Reads.end())
    return true;
  for (const Site &Use : R->second) {
    if (Use.S == L.For || llvm::is_contained(Use.At.Loops, L.For))
      continue;
    // After the recomputation: in a reverse loop, not the recomputation.
    auto First = FirstOfReverse.find(Use.S);
    bool InReverse = llvm::any_of(Reverse, [&](const Stmt *Rev) {
      return llvm::is_contained(Use.At.Loops, Rev) &&
             (First == FirstOfReverse.end() || First->second != Rev);
    });
    if (!InReverse)
      return false;
  }
  return true;
}

/// True when \p S is a loop whose body only stores into __shared__ memory.
static bool onlyFillsShared(const Stmt *S) {
  const auto *For = dyn_cast<ForStmt>(S);
  if (!For || For->getBody()->getBody().empty())
    return false;
  return llvm::all_of(For->getBody()->getBody(), [](const Stmt *Sub) {
    const auto *A = dyn_cast<AssignStmt>(Sub);
    const Var *Root = A ? ActivityAnalysis::getRootVar(A->getLHS()) : nullptr;
    return Root && Root->isShared() && !isa<VarRefExpr>(A->getLHS());
  });
}

unsigned ownership::threadDimsBesidesFills(const Function &Kernel) {
  // The init statements of the loops that only fill shared memory.
  llvm::SmallPtrSet<const Stmt *, 4> Fills;
  return threadDimsOf(Kernel, [&](const Stmt *S) {
    if (onlyFillsShared(S))
      Fills.insert(cast<ForStmt>(S)->getInit());
    return Fills.count(S) != 0;
  });
}
