//===- AD/Reverse/ForwardFromOutputs.cpp - Loop state read back -----------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// meshad::AfterPrimal: the loops of a gradient kernel's forward sweep whose
/// final state the primal stores are replaced by loads of that state (see
/// the header).
///
//===----------------------------------------------------------------------===//

#include "AD/Reverse/ForwardFromOutputs.h"
#include "IR/Traversal.h"
#include "Simplify/DeadLocals.h"

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Support/Casting.h"

#include <optional>
#include <vector>

using namespace meshad;
using namespace meshad::ir;
using llvm::cast;
using llvm::dyn_cast;
using llvm::dyn_cast_or_null;
using llvm::isa;

namespace {

/// \p E as a variable, or null.
Var *varOf(const Expr *E) {
  if (const auto *R = dyn_cast_or_null<VarRefExpr>(E))
    return R->getVar();
  return nullptr;
}

/// The variable a statement assigns as a whole (x = ..., ++x), or null.
Var *assignedVar(const Stmt *S) {
  if (const auto *D = dyn_cast<DeclStmt>(S))
    return D->getVar();
  if (const auto *A = dyn_cast<AssignStmt>(S))
    return varOf(A->getLHS());
  return nullptr;
}

/// Whether \p E reads \p V.
bool reads(const Expr *E, const Var *V) {
  bool Found = false;
  if (E)
    forEachExpr(E, [&](const Expr *Sub) { Found |= varOf(Sub) == V; });
  return Found;
}

/// Whether the statement \p S itself (not nested statements) reads \p V.
bool ownReads(const Stmt *S, const Var *V) {
  if (const auto *A = dyn_cast<AssignStmt>(S)) {
    if (varOf(A->getLHS()) != V || A->getOp() != AssignOp::Assign)
      if (reads(A->getLHS(), V))
        return true;
    return reads(A->getRHS(), V);
  }
  for (const Expr *E : ownExprs(S))
    if (reads(E, V))
      return true;
  return false;
}

/// The variables \p S and its nested statements assign.
void collectAssigned(const Stmt *S, llvm::SmallPtrSetImpl<Var *> &Out) {
  forEachStmt(S, [&](const Stmt *Sub) {
    if (Var *V = assignedVar(Sub))
      Out.insert(V);
  });
}

/// Definite assignment: whether \p S may read \p V before assigning it,
/// given \p Assigned (updated: whether \p V is assigned on every path
/// through \p S).
bool readsFirst(const Stmt *S, const Var *V, bool &Assigned);

bool readsFirstIn(const BlockStmt *Block, const Var *V, bool &Assigned) {
  if (Block)
    for (const Stmt *S : Block->getBody())
      if (readsFirst(S, V, Assigned))
        return true;
  return false;
}

bool readsFirst(const Stmt *S, const Var *V, bool &Assigned) {
  if (!Assigned && ownReads(S, V))
    return true;
  switch (S->getKind()) {
  case Stmt::Kind::Block:
    return readsFirstIn(cast<BlockStmt>(S), V, Assigned);
  case Stmt::Kind::If: {
    const auto *I = cast<IfStmt>(S);
    bool Then = Assigned, Else = Assigned;
    if (readsFirstIn(I->getThen(), V, Then) ||
        readsFirstIn(I->getElse(), V, Else))
      return true;
    Assigned = Then && Else;
    return false;
  }
  case Stmt::Kind::For: {
    const auto *F = cast<ForStmt>(S);
    if (F->getInit() && readsFirst(F->getInit(), V, Assigned))
      return true;
    if (!Assigned && reads(F->getCond(), V))
      return true;
    bool Body = Assigned; // The body may run no time.
    return readsFirstIn(F->getBody(), V, Body) ||
           (F->getInc() && readsFirst(F->getInc(), V, Body));
  }
  case Stmt::Kind::While: {
    bool Body = Assigned;
    return readsFirstIn(cast<WhileStmt>(S)->getBody(), V, Body);
  }
  case Stmt::Kind::Do: {
    bool Body = Assigned;
    return readsFirstIn(cast<DoStmt>(S)->getBody(), V, Body) ||
           (!Body && reads(cast<DoStmt>(S)->getCond(), V));
  }
  default:
    if (varOf(S->getKind() == Stmt::Kind::Assign
                  ? cast<AssignStmt>(S)->getLHS()
                  : nullptr) == V ||
        (isa<DeclStmt>(S) && cast<DeclStmt>(S)->getVar() == V))
      Assigned = true;
    return false;
  }
}

/// What the primal stores of a loop's final state.
struct StoredState {
  const ForStmt *Loop = nullptr;
  Var *Counter = nullptr, *Begin = nullptr, *End = nullptr;
  /// Each state local and the store's target (`finalT[pix]`), in order.
  std::vector<std::pair<Var *, const Expr *>> Values;
  /// `walked[pix]`, where the primal stores `stop - begin`; null if none.
  const Expr *Walked = nullptr;
  unsigned Breaks = 0;
};

/// The breaks that leave \p Body's loop, and the statement before each.
void findBreaks(const BlockStmt *Body,
                std::vector<std::pair<const Stmt *, const BlockStmt *>> &Out) {
  const std::vector<const Stmt *> &Stmts = Body->getBody();
  for (size_t I = 0; I < Stmts.size(); ++I) {
    const Stmt *S = Stmts[I];
    if (isa<BreakStmt>(S))
      Out.push_back({I ? Stmts[I - 1] : nullptr, Body});
    else if (const auto *If = dyn_cast<IfStmt>(S)) {
      findBreaks(If->getThen(), Out);
      if (If->getElse())
        findBreaks(If->getElse(), Out);
    } else if (const auto *B = dyn_cast<BlockStmt>(S))
      findBreaks(B, Out);
  }
}

/// How many statements of \p Body assign \p V.
unsigned countAssigns(const Stmt *Body, const Var *V) {
  unsigned N = 0;
  forEachStmt(Body, [&](const Stmt *S) { N += assignedVar(S) == V; });
  return N;
}

/// Whether a statement of \p Body other than \p Store names \p P.
bool touchesElsewhere(const Stmt *Body, const Var *P, const Stmt *Store) {
  bool Found = false;
  forEachStmt(Body, [&](const Stmt *S) {
    if (S != Store)
      for (const Expr *E : ownExprs(S))
        Found |= reads(E, P);
  });
  return Found;
}

/// Whether \p S stores the walked count `out[i] = stop - begin` of the loop
/// at \p At of \p Stmts (\p Breaks: its breaks).
bool storesWalked(const StoredState &St, const std::vector<const Stmt *> &Stmts,
                  size_t At, const AssignStmt *S, const Stmt *Body,
                  const std::vector<std::pair<const Stmt *, const BlockStmt *>>
                      &Breaks) {
  const auto *Sub = dyn_cast<BinaryExpr>(S->getRHS());
  Var *Stop = Sub ? varOf(Sub->getLHS()) : nullptr;
  if (!Stop || Sub->getOp() != BinaryOp::Sub ||
      varOf(Sub->getRHS()) != St.Begin || Breaks.empty() ||
      countAssigns(Body, Stop) != 1 + Breaks.size())
    return false;
  // stop = end before the loop, stop = k before each break, no other.
  for (auto &[Before, In] : Breaks) {
    const auto *Set = dyn_cast_or_null<AssignStmt>(Before);
    if (!Set || varOf(Set->getLHS()) != Stop ||
        varOf(Set->getRHS()) != St.Counter)
      return false;
  }
  bool Declared = false;
  for (size_t J = 0; J < At; ++J)
    if (const auto *D = dyn_cast<DeclStmt>(Stmts[J]); D && D->getVar() == Stop)
      Declared = varOf(D->getInit()) == St.End;
  return Declared;
}

/// The stores of the loop's final state among the statements after it.
void readStores(StoredState &St, const Function &Primal,
                const BlockStmt *Block, size_t At) {
  llvm::SmallPtrSet<Var *, 16> InLoop;
  collectAssigned(St.Loop, InLoop);
  std::vector<std::pair<const Stmt *, const BlockStmt *>> Breaks;
  findBreaks(St.Loop->getBody(), Breaks);
  St.Breaks = Breaks.size();
  const Stmt *Body = Primal.getBody();
  const auto &Stmts = Block->getBody();
  // Nothing between the loop and statement \p I assigns \p V or returns.
  auto Unchanged = [&](const Var *V, size_t I) {
    bool Ok = true;
    for (size_t J = At + 1; J < I; ++J)
      forEachStmt(Stmts[J], [&](const Stmt *S) {
        Ok &= assignedVar(S) != V && !isa<ReturnStmt>(S);
      });
    return Ok;
  };
  for (size_t I = At + 1; I < Stmts.size(); ++I) {
    const auto *A = dyn_cast<AssignStmt>(Stmts[I]);
    const auto *Target = A ? dyn_cast<IndexExpr>(A->getLHS()) : nullptr;
    Var *Out = Target ? varOf(Target->getBase()) : nullptr;
    if (!Out || !Out->isParam() || A->getOp() != AssignOp::Assign ||
        touchesElsewhere(Body, Out, A))
      continue;
    bool IndexOk = true;
    forEachExpr(Target->getIndex(), [&](const Expr *E) {
      if (Var *V = varOf(E))
        IndexOk &= !InLoop.count(V) && countAssigns(Body, V) == 1;
    });
    if (!IndexOk)
      continue;
    Var *V = varOf(A->getRHS());
    if (V && V->getType()->isFloatingScalar() && Unchanged(V, I))
      St.Values.push_back({V, Target});
    const auto *Sub = dyn_cast<BinaryExpr>(A->getRHS());
    if (Sub && Unchanged(varOf(Sub->getLHS()), I) &&
        storesWalked(St, Stmts, At, A, Body, Breaks))
      St.Walked = Target;
  }
}

/// The primal's counted loop at \p At of \p Block and the stores of its
/// final state after it; the reason in \p WhyNot when none.
std::optional<StoredState> storedState(const Function &Primal,
                                       const BlockStmt *Block, size_t At,
                                       std::string &WhyNot) {
  StoredState St;
  St.Loop = cast<ForStmt>(Block->getBody()[At]);
  const auto *Init = dyn_cast_or_null<DeclStmt>(St.Loop->getInit());
  const auto *Cond = dyn_cast_or_null<BinaryExpr>(St.Loop->getCond());
  const auto *Inc = dyn_cast_or_null<AssignStmt>(St.Loop->getInc());
  if (!Init || !Cond || !Inc || Cond->getOp() != BinaryOp::Lt ||
      Inc->getOp() != AssignOp::Inc || varOf(Inc->getLHS()) != Init->getVar() ||
      varOf(Cond->getLHS()) != Init->getVar() || !varOf(Init->getInit()) ||
      !varOf(Cond->getRHS())) {
    WhyNot = "it is not a loop 'for (int k = begin; k < end; ++k)' over locals";
    return std::nullopt;
  }
  St.Counter = Init->getVar();
  St.Begin = varOf(Init->getInit());
  St.End = varOf(Cond->getRHS());
  const Stmt *Body = Primal.getBody();
  if (countAssigns(Body, St.Begin) != 1 || countAssigns(Body, St.End) != 1 ||
      countAssigns(Body, St.Counter) != 2) {
    WhyNot = "its bounds or counter are assigned elsewhere";
    return std::nullopt;
  }
  readStores(St, Primal, Block, At);
  return St;
}

} // namespace

namespace {

/// A statement and the blocks around it, innermost last: (block, index).
using StmtPath = std::vector<std::pair<const BlockStmt *, size_t>>;

/// The path to the loop of \p Grad's forward sweep that counts \p Counter,
/// through blocks and branches only.
bool findLoop(const BlockStmt *Block, const Var *Counter, StmtPath &Path) {
  for (size_t I = 0; I < Block->getBody().size(); ++I) {
    const Stmt *S = Block->getBody()[I];
    Path.push_back({Block, I});
    if (const auto *F = dyn_cast<ForStmt>(S);
        F && F->getInit() && assignedVar(F->getInit()) == Counter)
      return true;
    if (const auto *If = dyn_cast<IfStmt>(S)) {
      if (findLoop(If->getThen(), Counter, Path) ||
          (If->getElse() && findLoop(If->getElse(), Counter, Path)))
        return true;
    } else if (const auto *B = dyn_cast<BlockStmt>(S)) {
      if (findLoop(B, Counter, Path))
        return true;
    }
    if (const auto *M = dyn_cast<MarkerStmt>(S);
        M && M->getRegion() == MarkerStmt::Region::ReverseBegin) {
      Path.pop_back();
      return false;
    }
    Path.pop_back();
  }
  return false;
}

/// The statements that follow the end of \p Path, in order (the rest of
/// each block, innermost first).
std::vector<const Stmt *> after(const StmtPath &Path) {
  std::vector<const Stmt *> Out;
  for (auto It = Path.rbegin(); It != Path.rend(); ++It)
    for (size_t I = It->second + 1; I < It->first->getBody().size(); ++I)
      Out.push_back(It->first->getBody()[I]);
  return Out;
}

/// Whether \p V is assigned on every path to the end of \p Path.
bool assignedBefore(const StmtPath &Path, const Var *V) {
  bool Assigned = false;
  for (auto &[Block, At] : Path)
    for (size_t I = 0; I < At; ++I)
      (void)readsFirst(Block->getBody()[I], V, Assigned);
  return Assigned;
}

/// Why the gradient's loop \p G (or a statement) cannot be dropped: it
/// writes memory or calls something other than the undo checks; empty if
/// neither.
std::string sideEffects(const Stmt *G) {
  std::string Why;
  forEachStmt(G, [&](const Stmt *S) {
    if (const auto *A = dyn_cast<AssignStmt>(S); A && !varOf(A->getLHS()))
      Why = "the gradient's loop writes memory";
    if (isa<LaunchStmt>(S) || isa<ReturnStmt>(S))
      Why = "the gradient's loop launches or returns";
    for (const Expr *E : ownExprs(S))
      forEachExpr(E, [&](const Expr *Sub) {
        const auto *C = dyn_cast<CallExpr>(Sub);
        if (C && C->getCalleeKind() != CallExpr::CalleeKind::Math &&
            C->getName() != "meshad::checkUndoable")
          Why = "the gradient's loop calls '" +
                (C->getUserCallee() ? C->getUserCallee()->getName()
                                    : C->getName()) +
                "'";
      });
  });
  return Why;
}

/// The early-exit flag among \p Live: a bool the loop \p G tests right
/// after setting it, `if (flag) { break; }` its one break, declared false
/// and set nowhere before \p G. Null if none.
Var *exitFlag(const ForStmt *G, const llvm::SmallPtrSetImpl<Var *> &Live,
              const Function &Grad, const std::vector<const Stmt *> &Rest) {
  std::vector<std::pair<const Stmt *, const BlockStmt *>> Breaks;
  findBreaks(G->getBody(), Breaks);
  Var *Flag = nullptr;
  forEachStmt(G, [&](const Stmt *S) {
    const auto *If = dyn_cast<IfStmt>(S);
    if (!If || Breaks.size() != 1 || Breaks[0].second != If->getThen())
      return;
    if (Var *V = varOf(If->getCond()); V && Live.count(V))
      Flag = V;
  });
  if (!Flag)
    return nullptr;
  unsigned Outside = countAssigns(Grad.getBody(), Flag) - countAssigns(G, Flag);
  for (const Stmt *S : Rest)
    Outside -= countAssigns(S, Flag);
  bool DeclaredFalse = false;
  forEachStmt(Grad.getBody(), [&](const Stmt *S) {
    if (const auto *D = dyn_cast<DeclStmt>(S); D && D->getVar() == Flag)
      if (const auto *L = dyn_cast_or_null<BoolLitExpr>(D->getInit()))
        DeclaredFalse = !L->getValue();
  });
  return Outside == 1 && DeclaredFalse ? Flag : nullptr;
}

/// Inserts `meshad::checkRestored(V)` before each `V /= f` and `V *= f`
/// (the undone recurrences) in \p S.
void checkRestores(IRBuilder &B, const Stmt *S, Var *V) {
  forEachStmt(S, [&](const Stmt *Sub) {
    const auto *Block = dyn_cast<BlockStmt>(Sub);
    if (!Block)
      return;
    std::vector<const Stmt *> Body;
    for (const Stmt *T : Block->getBody()) {
      const auto *A = dyn_cast<AssignStmt>(T);
      if (A && varOf(A->getLHS()) == V &&
          (A->getOp() == AssignOp::DivAssign ||
           A->getOp() == AssignOp::MulAssign))
        Body.push_back(B.getModule().create<ExprStmt>(
            B.getModule().create<CallExpr>(
                B.types().getVoid(), CallExpr::CalleeKind::Intrinsic,
                "meshad::checkRestored", -1,
                std::vector<const Expr *>{B.ref(V)})));
      Body.push_back(T);
    }
    if (Body.size() != Block->getBody().size())
      const_cast<BlockStmt *>(Block)->setBody(std::move(Body));
  });
}

/// The gradient's side of one loop: what to read back for \p St.
class Replay {
public:
  Replay(IRBuilder &B, Function &Grad, const StoredState &St)
      : B(B), Grad(Grad), St(St) {}

  /// Replaces the loop; false with \p WhyNot when it must run again.
  bool run(std::string &WhyNot, std::string &What);

private:
  bool findLive(const ForStmt *G, std::string &WhyNot);
  /// The statements of \p Block before \p At less the dead initial
  /// values of what is read back.
  std::vector<const Stmt *> keptBefore(const BlockStmt *Block,
                                       size_t At) const;
  /// The stores whose values the loads read.
  std::vector<const Expr *> usedTargets() const {
    std::vector<const Expr *> Out;
    for (auto &[V, Target] : St.Values)
      if (Live.count(V))
        Out.push_back(Target);
    if (St.Walked && (Flag || (St.Breaks && Live.count(Count))))
      Out.push_back(St.Walked);
    return Out;
  }
  bool stored(const Var *V) const {
    for (auto &[S, Target] : St.Values)
      if (S == V)
        return true;
    return false;
  }
  std::vector<const Stmt *> loads(const ForStmt *G, std::string &What);

  IRBuilder &B;
  Function &Grad;
  const StoredState &St;
  std::vector<const Stmt *> Rest;
  llvm::SmallPtrSet<Var *, 8> Live;
  Var *Count = nullptr, *Flag = nullptr;
};

bool Replay::findLive(const ForStmt *G, std::string &WhyNot) {
  const auto &Body = G->getBody()->getBody();
  const auto *Inc = Body.empty() ? nullptr : dyn_cast<AssignStmt>(Body[0]);
  if (Inc && Inc->getOp() == AssignOp::Inc)
    Count = varOf(Inc->getLHS());
  llvm::SmallPtrSet<Var *, 16> Assigned;
  collectAssigned(G, Assigned);
  for (Var *V : Assigned) {
    bool Done = false;
    for (const Stmt *S : Rest)
      if (readsFirst(S, V, Done)) {
        Live.insert(V);
        break;
      }
  }
  Flag = exitFlag(G, Live, Grad, Rest);
  for (Var *V : Live)
    if (V != Count && V != Flag && !stored(V)) {
      WhyNot = "the gradient reads '" + V->getName() +
               "' after it, which the primal does not store after the loop";
      return false;
    }
  if ((Flag || (St.Breaks && Live.count(Count))) && !St.Walked) {
    WhyNot = "it may stop at a break and the primal does not store where "
             "(as 'walked[p] = stop - begin')";
    return false;
  }
  return true;
}

std::vector<const Stmt *> Replay::loads(const ForStmt *G, std::string &What) {
  std::vector<const Stmt *> Out;
  for (auto &[V, Target] : St.Values)
    if (Live.count(V)) {
      Out.push_back(B.assign(B.ref(V), AssignOp::Assign, Target));
      for (const Stmt *S : Rest)
        checkRestores(B, S, V);
      What += "'" + V->getName() + "' from '" +
              varOf(cast<IndexExpr>(Target)->getBase())->getName() + "', ";
    }
  const Expr *Range = B.sub(B.ref(St.End), B.ref(St.Begin));
  const Expr *Whole = B.select(B.binary(BinaryOp::Lt, B.ref(St.Begin),
                                        B.ref(St.End)),
                               Range, B.intLit(0, Range->getType()),
                               Range->getType());
  if (!St.Walked || !(Flag || St.Breaks)) { // No break: the whole range.
    if (Count && Live.count(Count))
      Out.push_back(B.assign(B.ref(Count), AssignOp::Assign, Whole));
    What += "the trip count from the loop's bounds";
    return Out;
  }
  What += "the trip count and the early exit from '" +
          varOf(cast<IndexExpr>(St.Walked)->getBase())->getName() + "'";
  if (!Count || !Live.count(Count)) {
    Out.push_back(B.assign(B.ref(Flag), AssignOp::Assign,
                           B.binary(BinaryOp::Lt, St.Walked, Range)));
    return Out;
  }
  const Expr *Stopped = B.binary(BinaryOp::Lt, B.ref(Count), Range);
  Out.push_back(B.assign(B.ref(Count), AssignOp::Assign, St.Walked));
  if (Flag) {
    Out.push_back(B.assign(B.ref(Flag), AssignOp::Assign, Stopped));
    Stopped = B.ref(Flag);
  }
  BlockStmt *Then = B.block(), *Else = B.block();
  Then->append(B.assign(B.ref(Count), AssignOp::Inc, nullptr));
  Else->append(B.assign(B.ref(Count), AssignOp::Assign, Whole));
  Out.push_back(B.getModule().create<IfStmt>(Stopped, Then, Else));
  return Out;
}

std::vector<const Stmt *> Replay::keptBefore(const BlockStmt *Block,
                                             size_t At) const {
  // The loop's initial values of what is read back (`T = 1`) are dead.
  auto Dead = [&](size_t I) {
    const auto *A = dyn_cast<AssignStmt>(Block->getBody()[I]);
    Var *V = A && A->getOp() == AssignOp::Assign ? varOf(A->getLHS()) : nullptr;
    if (!V || !Live.count(V) || !sideEffects(A).empty())
      return false;
    bool Read = false;
    for (size_t J = I + 1; J < At; ++J)
      forEachStmt(Block->getBody()[J],
                  [&](const Stmt *S) { Read |= ownReads(S, V); });
    return !Read;
  };
  std::vector<const Stmt *> Out;
  for (size_t I = 0; I < At; ++I)
    if (!Dead(I))
      Out.push_back(Block->getBody()[I]);
  return Out;
}

bool Replay::run(std::string &WhyNot, std::string &What) {
  StmtPath Path;
  if (!findLoop(Grad.getBody(), St.Counter, Path)) {
    WhyNot = "the gradient's forward sweep does not run it at its top level";
    return false;
  }
  auto [Block, At] = Path.back();
  const auto *G = cast<ForStmt>(Block->getBody()[At]);
  Rest = after(Path);
  WhyNot = sideEffects(G);
  if (!WhyNot.empty() || !findLive(G, WhyNot))
    return false;
  if (Live.count(Count) && !Flag && St.Breaks) {
    WhyNot = "its early exit is not recorded as one flag";
    return false;
  }
  // The loads go after the rest of the loop's block, which must compute
  // the stores' indices and read nothing the loop leaves.
  std::vector<const Stmt *> Body = keptBefore(Block, At);
  llvm::SmallPtrSet<Var *, 4> Computed;
  for (size_t I = At + 1; I < Block->getBody().size(); ++I) {
    const Stmt *S = Block->getBody()[I];
    for (Var *V : Live)
      if (countAssigns(S, V) || ownReads(S, V) || isa<IfStmt>(S) ||
          isa<ForStmt>(S)) {
        WhyNot = "the statements after it in its block use what it leaves";
        return false;
      }
    if (Var *V = assignedVar(S))
      Computed.insert(V);
    Body.push_back(S);
  }
  llvm::SmallPtrSet<Var *, 4> IndexVars;
  for (const Expr *Target : usedTargets())
    forEachExpr(cast<IndexExpr>(Target)->getIndex(), [&](const Expr *E) {
      if (Var *V = varOf(E))
        IndexVars.insert(V);
    });
  for (Var *V : IndexVars)
    if (!Computed.count(V) && !assignedBefore(Path, V)) {
      WhyNot = "the gradient does not compute '" + V->getName() +
               "', the index of a store it reads back";
      return false;
    }
  for (const Stmt *S : loads(G, What))
    Body.push_back(S);
  const_cast<BlockStmt *>(Block)->setBody(std::move(Body));
  return true;
}

} // namespace

unsigned meshad::replayFromOutputs(IRBuilder &B, const Function &Primal,
                                   Function &Grad, DiagnosticSink &Diags) {
  unsigned Done = 0;
  const BlockStmt *Top = Primal.getBody();
  for (size_t I = 0; I < Top->getBody().size(); ++I) {
    if (!isa<ForStmt>(Top->getBody()[I]))
      continue;
    std::string WhyNot, What;
    const Stmt *Loop = Top->getBody()[I];
    std::optional<StoredState> St = storedState(Primal, Top, I, WhyNot);
    if (St && Replay(B, Grad, *St).run(WhyNot, What)) {
      Diags.remark(Loop->getLoc(),
                   "loop not run again by the gradient (meshad::AfterPrimal): "
                   "the values its reverse sweep needs are read back from "
                   "what the primal stored (" + What + ")");
      ++Done;
      continue;
    }
    Diags.remark(Loop->getLoc(), "loop run again by the gradient's forward "
                                 "sweep (meshad::AfterPrimal): " + WhyNot);
  }
  if (Done)
    removeDeadLocals(Grad);
  return Done;
}
