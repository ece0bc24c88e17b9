//===- GPU/BlockUniformReduce.cpp - Uniform adjoint adds in loops ---------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//

#include "GPU/BlockUniformReduce.h"
#include "Analysis/IRWalk.h"
#include "GPU/BlockUniformKey.h"
#include "GPU/BlockUniformity.h"
#include "GPU/LowerAccumulations.h"
#include "IR/Intrinsics.h"
#include "IR/Traversal.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSet.h"

using namespace meshad;
using namespace meshad::ir;
using llvm::cast;
using llvm::dyn_cast;

UniformAddTargets meshad::uniformAddTargets(const AccumulationFacts &Facts) {
  UniformAddTargets T;
  if (Facts.ForceAtomics)
    return T;
  T.PerWarp = Facts.UniformSumsPerWarp;
  for (const AccumulationFacts::Owned &O : Facts.Ownership)
    if (O.Result.Class == OwnershipClass::Uniform ||
        O.Result.Class == OwnershipClass::Shared)
      T.Names[O.Adjoint] = O.PrimalName;
  for (const AccumulationFacts::Owned &O : Facts.Ownership)
    if (O.Result.Class == OwnershipClass::Uniform)
      T.UniformClass.insert(O.Adjoint);
  for (const AccumulationFacts::UniformElement &U : Facts.UniformElements)
    T.Names.erase(U.Adjoint);
  return T;
}

namespace {

const Var *refVar(const Expr *E) {
  const auto *R = llvm::dyn_cast_or_null<VarRefExpr>(E);
  return R ? R->getVar() : nullptr;
}

/// The counter c of `for (; c > 0; --c)`, the reverse loop of reverse mode,
/// or null.
const Var *reverseCounter(const ForStmt *L) {
  const auto *Cond = llvm::dyn_cast_or_null<BinaryExpr>(L->getCond());
  const auto *Inc = llvm::dyn_cast_or_null<AssignStmt>(L->getInc());
  if (L->getInit() || !Cond || Cond->getOp() != BinaryOp::Gt || !Inc ||
      Inc->getOp() != AssignOp::Dec)
    return nullptr;
  const auto *Zero = dyn_cast<IntLitExpr>(Cond->getRHS());
  const Var *C = refVar(Cond->getLHS());
  if (!Zero || Zero->getValue() != 0 || !C || refVar(Inc->getLHS()) != C ||
      !C->getType()->isIntegral())
    return nullptr;
  return C;
}

/// The block that a one-sided `if` runs: `if (g) {...}`, or
/// `if (g) {} else {...}` as reverse mode leaves it; null for two sides.
const BlockStmt *guardedBlock(const IfStmt *I) {
  if (!I->getElse())
    return I->getThen();
  return I->getThen()->getBody().empty() ? I->getElse() : nullptr;
}

/// A reverse loop at the top level of a kernel: alone, or last in the
/// block of a one-sided guard.
struct LoopPlace {
  const ForStmt *Loop = nullptr;
  const BlockStmt *Guard = nullptr;
  const Var *Counter = nullptr;
};

/// An add summed per warp.
struct Site {
  const AssignStmt *Add;
  const Var *Target;
};

class UniformAddReducer {
public:
  UniformAddReducer(IRBuilder &B, Function &F, const UniformAddTargets &T,
                    DiagnosticSink &Diags)
      : B(B), M(B.getModule()), F(F), Targets(T), Diags(Diags), Uniform(F) {
    for (const Var *P : F.getParams())
      Taken.insert(P->getName());
    forEachStmt(F.getBody(), [&](const Stmt *S) {
      if (const auto *D = dyn_cast<DeclStmt>(S))
        Taken.insert(D->getVar()->getName());
      HasReturn |= llvm::isa<ReturnStmt>(S);
    });
  }

  void run() { rewriteBlock(F.getBody()); }

private:
  /// Rewrites the loops of \p Blk, a block that every thread of the block
  /// runs (the kernel's body, or a branch of an `if` whose condition is
  /// block-uniform, which every thread takes alike).
  void rewriteBlock(const BlockStmt *Blk) {
    std::vector<const Stmt *> Body;
    for (const Stmt *S : Blk->getBody()) {
      LoopPlace P;
      if (!findLoop(S, P) || !addsToTargets(P.Loop)) {
        if (!rewriteUniformIf(S))
          remarkNested(S, NestedWhy);
        Body.push_back(S);
        continue;
      }
      // Loops without a uniform add keep the policy's remarks alone.
      std::string Why = checkLoop(P);
      if (!findSites(P)) {
        remarkNested(P.Loop->getBody(), InnerWhy);
        Body.push_back(S);
        continue;
      }
      if (!Why.empty()) {
        remarkKept(P.Loop, Why);
        Body.push_back(S);
        continue;
      }
      rewrite(P, S, Body);
      remarkNested(P.Loop->getBody(), InnerWhy);
    }
    const_cast<BlockStmt *>(Blk)->setBody(std::move(Body));
  }

  /// Rewrites the branches of \p S when it is an `if` whose condition is
  /// block-uniform; false otherwise.
  bool rewriteUniformIf(const Stmt *S) {
    const auto *I = dyn_cast<IfStmt>(S);
    if (!I || !Uniform.isUniform(I->getCond(), Uniform.global()))
      return false;
    rewriteBlock(I->getThen());
    if (I->getElse())
      rewriteBlock(I->getElse());
    return true;
  }

  /// Remarks on the reverse loops in \p S (at any depth) whose own body
  /// adds into an array of ownership class uniform, which stay atomic:
  /// \p Why.
  void remarkNested(const Stmt *S, const char *Why) {
    forEachStmt(S, [&](const Stmt *X) {
      const auto *L = dyn_cast<ForStmt>(X);
      if (L && reverseCounter(L) && addsUniformClass(L->getBody()))
        remarkKept(L, Why);
    });
  }

  /// True when \p Blk, outside its nested loops, adds into an array of
  /// ownership class uniform.
  bool addsUniformClass(const BlockStmt *Blk) const {
    for (const Stmt *S : Blk->getBody()) {
      if (isAccumulate(S))
        if (const Var *T = targetOf(cast<AssignStmt>(S));
            T && Targets.UniformClass.count(T))
          return true;
      bool Found = false;
      forEachNested(S, [&](const BlockStmt *Sub, bool Loop) {
        Found |= !Loop && addsUniformClass(Sub);
      });
      if (Found)
        return true;
    }
    return false;
  }

  static constexpr const char *NestedWhy =
      "it is not at the kernel's top level (it is inside a loop, or a branch "
      "whose condition may differ between threads), so the threads of a "
      "warp may reach it a different number of times";
  static constexpr const char *InnerWhy =
      "it is nested in a reverse loop whose iterations the threads run "
      "under their own trip count";

  static bool isAccumulate(const Stmt *S) {
    const auto *A = dyn_cast<AssignStmt>(S);
    return A && A->getOp() == AssignOp::Accumulate;
  }
  const Var *targetOf(const AssignStmt *A) const {
    const auto *I = dyn_cast<IndexExpr>(A->getLHS());
    const Var *V = I ? refVar(I->getBase()) : nullptr;
    return V && Targets.Names.count(V) ? V : nullptr;
  }

  bool findLoop(const Stmt *S, LoopPlace &P) const {
    if (const auto *I = dyn_cast<IfStmt>(S)) {
      P.Guard = guardedBlock(I);
      if (!P.Guard || P.Guard->getBody().empty())
        return false;
      S = P.Guard->getBody().back();
    }
    P.Loop = dyn_cast<ForStmt>(S);
    return P.Loop != nullptr;
  }

  bool addsToTargets(const ForStmt *L) const {
    bool Any = false;
    forEachStmt(L->getBody(), [&](const Stmt *S) {
      Any |= isAccumulate(S) && targetOf(cast<AssignStmt>(S));
    });
    return Any;
  }

  /// Why \p P cannot run in step across a warp, or "".
  std::string checkLoop(LoopPlace &P) const {
    if (HasReturn)
      return "the kernel has a return statement, so a lane may leave before "
             "its warp's sum";
    P.Counter = reverseCounter(P.Loop);
    if (!P.Counter)
      return "the loop is not a counted reverse loop (for (; c > 0; --c))";
    if (P.Guard && readsGuardLocals(P))
      return "it reads locals declared in its guard's scope";
    std::string Why;
    checkBody(P.Loop->getBody(), /*InInner=*/false, P.Counter, Why);
    return Why;
  }

  /// True when the loop of \p P reads a local declared beside it.
  static bool readsGuardLocals(const LoopPlace &P) {
    VarSet Locals;
    for (const Stmt *S : P.Guard->getBody())
      if (const auto *D = dyn_cast<DeclStmt>(S))
        Locals.insert(D->getVar());
    bool Reads = false;
    forEachStmt(P.Loop, [&](const Stmt *S) {
      for (const Expr *E : ownExprs(S))
        forEachExpr(E, [&](const Expr *X) {
          const Var *V = refVar(X);
          Reads |= V && Locals.count(V);
        });
    });
    return Reads;
  }

  void checkBody(const BlockStmt *Blk, bool InInner, const Var *Counter,
                 std::string &Why) const {
    for (const Stmt *S : Blk->getBody()) {
      if (!Why.empty())
        return;
      if (!InInner && (llvm::isa<BreakStmt>(S) || llvm::isa<ContinueStmt>(S)))
        Why = "its body leaves an iteration early (break or continue)";
      if (const auto *A = dyn_cast<AssignStmt>(S))
        if (refVar(A->getLHS()) == Counter)
          Why = "its body changes the counter " + Counter->getName();
      for (const Expr *E : ownExprs(S))
        forEachExpr(E, [&](const Expr *X) {
          const IntrinsicInfo *I = lookupIntrinsic(dyn_cast<CallExpr>(X));
          if (I && (I->isBarrier() || I->has(IF_Collective)))
            Why = "its body waits in a barrier or a warp collective, which "
                  "the lanes past their trip count would skip";
        });
      forEachNested(S, [&](const BlockStmt *Sub, bool Loop) {
        checkBody(Sub, InInner || Loop, Counter, Why);
      });
    }
  }

  /// Calls \p Fn on the blocks directly nested in \p S, with whether they
  /// are a loop's body.
  static void forEachNested(const Stmt *S,
                            llvm::function_ref<void(const BlockStmt *, bool)> Fn) {
    if (const auto *Blk = dyn_cast<BlockStmt>(S))
      Fn(Blk, false);
    else if (const auto *I = dyn_cast<IfStmt>(S)) {
      Fn(I->getThen(), false);
      if (I->getElse())
        Fn(I->getElse(), false);
    } else if (const auto *L = dyn_cast<ForStmt>(S))
      Fn(L->getBody(), true);
    else if (const auto *W = dyn_cast<WhileStmt>(S))
      Fn(W->getBody(), true);
    else if (const auto *D = dyn_cast<DoStmt>(S))
      Fn(D->getBody(), true);
  }

  /// Finds the adds of \p P's body whose index is uniform (the counter
  /// of a reverse loop taken as uniform); false when there are none.
  bool findSites(const LoopPlace &P) {
    Sites.clear();
    VarSet Env = Uniform.global();
    if (P.Counter)
      Env.insert(P.Counter);
    walk(P.Loop->getBody(), /*InInner=*/false, Env);
    return !Sites.empty();
  }

  /// Walks \p Blk in order, \p Env holding the locals uniform at each
  /// point: an assignment outside nested loops from a uniform value makes
  /// its local uniform until the end of its branch (the lanes that run a
  /// branch of the in-step body all run it at the same step), any other
  /// assignment not.
  void walk(const BlockStmt *Blk, bool InInner, VarSet &Env) {
    for (const Stmt *S : Blk->getBody()) {
      for (const Expr *E : ownExprs(S))
        forEachExpr(E, [&](const Expr *X) {
          const auto *U = dyn_cast<UnaryExpr>(X);
          if (U && U->getOp() == UnaryOp::AddrOf)
            if (const Var *V = refVar(U->getSub()))
              Env.erase(V);
        });
      if (const auto *D = dyn_cast<DeclStmt>(S)) {
        const Expr *Init = D->getInit();
        if (Init && Uniform.isUniform(Init, Env) &&
            !Uniform.isAddressTaken(D->getVar()))
          Env.insert(D->getVar());
        else
          Env.erase(D->getVar());
      } else if (const auto *A = dyn_cast<AssignStmt>(S)) {
        if (isAccumulate(A))
          noteAdd(A, InInner, Env);
        else if (const Var *V = refVar(A->getLHS())) {
          if (!InInner && A->getOp() == AssignOp::Assign &&
              Uniform.isUniform(A->getRHS(), Env) &&
              !Uniform.isAddressTaken(V))
            Env.insert(V);
          else
            Env.erase(V);
        }
      } else if (const auto *I = dyn_cast<IfStmt>(S)) {
        walkBranches(I, InInner, Env);
      } else {
        bool Loop = !llvm::isa<BlockStmt>(S);
        if (Loop)
          forgetAssigned(S, Env);
        forEachNested(S, [&](const BlockStmt *Sub, bool IsLoop) {
          walk(Sub, InInner || IsLoop, Env);
        });
      }
    }
  }

  /// Walks the branches of \p I, each from \p Env; after the `if`, the
  /// locals uniform in both and not assigned in either stay uniform.
  void walkBranches(const IfStmt *I, bool InInner, VarSet &Env) {
    VarSet Then = Env, Else = Env;
    walk(I->getThen(), InInner, Then);
    if (I->getElse())
      walk(I->getElse(), InInner, Else);
    forgetAssigned(I, Env);
    for (const Var *V : llvm::SmallVector<const Var *, 16>(Env.begin(),
                                                            Env.end()))
      if (!Then.count(V) || !Else.count(V))
        Env.erase(V);
  }

  /// Removes from \p Env the locals that \p S assigns anywhere.
  static void forgetAssigned(const Stmt *S, VarSet &Env) {
    forEachStmt(S, [&](const Stmt *X) {
      if (const auto *A = dyn_cast<AssignStmt>(X))
        if (const Var *V = refVar(A->getLHS()))
          Env.erase(V);
      if (const auto *D = dyn_cast<DeclStmt>(X))
        Env.erase(D->getVar());
    });
  }

  void noteAdd(const AssignStmt *A, bool InInner, const VarSet &Env) {
    const Var *T = targetOf(A);
    if (!T)
      return;
    // An add in a nested loop may reach several elements per iteration.
    const Expr *Index = cast<IndexExpr>(A->getLHS())->getIndex();
    if (!InInner && A->getLHS()->getType()->isFloatingScalar() &&
        Uniform.isUniform(Index, Env))
      Sites.push_back({A, T});
  }

  std::string fresh(const std::string &Base) {
    std::string Name = Base;
    for (unsigned N = 1; Taken.count(Name); ++N)
      Name = Base + std::to_string(N);
    Taken.insert(Name);
    return Name;
  }

  void rewrite(const LoopPlace &P, const Stmt *S,
               std::vector<const Stmt *> &Out);
  BlockStmt *replaceSites(const BlockStmt *Body);
  void remarkKept(const ForStmt *L, const std::string &Why);
  void remarkSite(const Site &S, const std::string &NotPerBlock);
  std::string keyRemark() const;
  std::string whyNotPerBlock() const;
  std::vector<const Stmt *> declareRegisters(BlockStmt *Loop, Var *Step,
                                             const std::string &NotPerBlock);
  void chooseKey(const LoopPlace &P, const std::string &NotPerBlock);
  void recordKey(BlockStmt *Active);
  std::vector<const Expr *> keyedQuad(const Site &X, Var *Sum) const;
  const Stmt *call(const char *Name, std::vector<const Expr *> Args);

  IRBuilder &B;
  Module &M;
  Function &F;
  const UniformAddTargets &Targets;
  DiagnosticSink &Diags;
  BlockUniformity Uniform;
  llvm::StringSet<> Taken;
  bool HasReturn = false;
  std::vector<Site> Sites;
  /// Per site: its sum and address registers (no address when keyed).
  llvm::DenseMap<const Stmt *, std::pair<Var *, Var *>> Registers;
  /// The loop's key (BlockUniformKey) and its register, or why none.
  std::optional<UniformKey> Key;
  Var *KeyRegister = nullptr;
  std::string NoKey;
};

} // namespace

/// The in-step loop (see meshad/codegen/WarpStep.h), across the block:
///   int _steps = 0;  if (g) { ...; _steps = c; }
///   for (int _step = meshad::blockMaxSteps(_steps); _step > 0; --_step) {
///     <sum and address registers>
///     if (_step <= _steps) { <body, adds into registers>; --c; }
///     meshad::blockUniformAdds(_step, at, sum, ...);
///   }
/// or across each warp: meshad::warpMaxSteps, one
/// meshad::warpUniformAdds(at, sum, ...) per element type (one shuffle tree
/// for all the adds of that type).
void UniformAddReducer::rewrite(const LoopPlace &P, const Stmt *S,
                                std::vector<const Stmt *> &Out) {
  TypeContext &Types = M.getTypes();
  const Type *Int = Types.getInt("int");
  Var *Steps = M.createVar(fresh("_steps"), Int);
  Var *Step = M.createVar(fresh("_step"), Int);
  const Expr *Count = B.ref(const_cast<Var *>(P.Counter));
  if (P.Guard) {
    std::vector<const Stmt *> Guarded = P.Guard->getBody();
    Guarded.back() = B.assign(B.ref(Steps), AssignOp::Assign, Count);
    const_cast<BlockStmt *>(P.Guard)->setBody(std::move(Guarded));
    Out.push_back(B.decl(Steps, B.zero(Int)));
    Out.push_back(S);
  } else {
    Out.push_back(B.decl(Steps, Count));
  }
  std::string NotPerBlock = whyNotPerBlock();
  chooseKey(P, NotPerBlock);
  BlockStmt *Loop = B.block();
  std::vector<const Stmt *> Reduce = declareRegisters(Loop, Step, NotPerBlock);
  BlockStmt *Active = replaceSites(P.Loop->getBody());
  recordKey(Active);
  Active->append(P.Loop->getInc());
  Loop->append(M.create<IfStmt>(
      B.binary(BinaryOp::Le, B.ref(Step), B.ref(Steps)), Active, nullptr));
  for (const Stmt *R : Reduce)
    Loop->append(R);
  const Expr *Max = M.create<CallExpr>(
      Int, CallExpr::CalleeKind::Intrinsic,
      NotPerBlock.empty() ? "meshad::blockMaxSteps" : "meshad::warpMaxSteps",
      -1, std::vector<const Expr *>{B.ref(Steps)});
  auto *For = M.create<ForStmt>(
      B.decl(Step, Max), B.binary(BinaryOp::Gt, B.ref(Step), B.intLit(0)),
      B.assign(B.ref(Step), AssignOp::Dec, nullptr), Loop);
  For->setLoc(P.Loop->getLoc());
  Out.push_back(For);
}

/// The most pairs one meshad::warpUniformAdds takes (a tree over a warp).
constexpr std::size_t MaxAddsPerTree = 32;

/// Declares each site's sum and address registers at the top of \p Loop
/// and returns the calls that add them after the body: one
/// meshad::blockUniformAdds for all, or per warp one meshad::warpUniformAdds
/// per element type (and per 32 adds), its pairs in the order of the sites.
std::vector<const Stmt *>
UniformAddReducer::declareRegisters(BlockStmt *Loop, Var *Step,
                                    const std::string &NotPerBlock) {
  std::vector<const Expr *> Pairs;
  if (NotPerBlock.empty())
    Pairs.push_back(B.ref(Step));
  std::vector<std::pair<const Type *, std::vector<const Expr *>>> PerType;
  const std::size_t PerAdd = Key ? 4 : 2;
  if (Key)
    Loop->append(B.decl(KeyRegister, B.zero(KeyRegister->getType())));
  for (const Site &X : Sites) {
    const Type *Elem = X.Add->getLHS()->getType()->getUnqualified();
    std::string Base = X.Target->getName();
    Var *Sum = M.createVar(fresh(Base + "_sum"), Elem);
    Var *At = Key ? nullptr
                  : M.createVar(fresh(Base + "_at"),
                                M.getTypes().getPointer(Elem));
    Registers[X.Add] = {Sum, At};
    Loop->append(B.decl(Sum, B.zero(Elem)));
    if (At)
      Loop->append(B.decl(At, B.zero(At->getType())));
    auto Group = llvm::find_if(PerType, [&](const auto &G) {
      return G.first == Elem && G.second.size() < PerAdd * MaxAddsPerTree;
    });
    if (Group == PerType.end())
      Group = PerType.insert(PerType.end(), {Elem, {}});
    if (Key) {
      llvm::append_range(Group->second, keyedQuad(X, Sum));
    } else {
      for (std::vector<const Expr *> *To : {&Pairs, &Group->second}) {
        To->push_back(B.ref(At));
        To->push_back(B.ref(Sum));
      }
    }
    remarkSite(X, NotPerBlock);
  }
  std::vector<const Stmt *> Reduce;
  if (NotPerBlock.empty()) {
    Reduce.push_back(call("meshad::blockUniformAdds", std::move(Pairs)));
    return Reduce;
  }
  for (auto &Group : PerType) {
    if (Key)
      Group.second.insert(Group.second.begin(), B.ref(KeyRegister));
    Reduce.push_back(call(Key ? "meshad::warpKeyedAdds"
                              : "meshad::warpUniformAdds",
                          std::move(Group.second)));
  }
  return Reduce;
}

/// The per-warp form's key (GPU/BlockUniformKey): every site's index
/// Scale * key + Offset for one variable, recorded in one register; else
/// NoKey says why the addresses stay one register per site.
void UniformAddReducer::chooseKey(const LoopPlace &P,
                                  const std::string &NotPerBlock) {
  Key.reset();
  KeyRegister = nullptr;
  NoKey.clear();
  if (NotPerBlock.empty())
    return; // the block form checks each address in shared memory
  std::vector<const AssignStmt *> Adds;
  for (const Site &X : Sites)
    Adds.push_back(X.Add);
  Key = findUniformKey(
      P.Loop->getBody(), Adds,
      [&](const Var *V) { return Uniform.isAddressTaken(V); }, NoKey);
  if (Key)
    KeyRegister = M.createVar(fresh("_key"), Key->Key->getType());
}

/// Sets the key's register in \p Active (the copy of the loop's body):
/// after the key's one assignment, in its block, or first when the body
/// never assigns it.
void UniformAddReducer::recordKey(BlockStmt *Active) {
  if (!Key)
    return;
  auto *Blk = const_cast<BlockStmt *>(
      Key->After ? blockHolding(Active, Key->After) : Active);
  std::vector<const Stmt *> Body = Blk->getBody();
  auto At = Key->After ? llvm::find(Body, Key->After) + 1 : Body.begin();
  Body.insert(At, B.assign(B.ref(KeyRegister), AssignOp::Assign,
                           B.ref(const_cast<Var *>(Key->Key))));
  Blk->setBody(std::move(Body));
}

/// The arguments of \p X in meshad::warpKeyedAdds: its adjoint array,
/// Scale, Offset and its sum register.
std::vector<const Expr *> UniformAddReducer::keyedQuad(const Site &X,
                                                       Var *Sum) const {
  std::size_t I = 0;
  while (Sites[I].Add != X.Add)
    ++I;
  const KeyedForm &Form = Key->Forms[I];
  return {B.ref(const_cast<Var *>(X.Target)), B.intLit(Form.Scale),
          B.intLit(Form.Offset), B.ref(Sum)};
}

/// Why the sites cannot be summed per block, or "": the block form's
/// helper takes one element type.
std::string UniformAddReducer::whyNotPerBlock() const {
  if (Targets.PerWarp)
    return "uniform-sums=warp";
  for (const Site &X : Sites)
    if (X.Add->getLHS()->getType()->getUnqualified() !=
        Sites.front().Add->getLHS()->getType()->getUnqualified())
      return "its adds are of different types";
  return "";
}

const Stmt *UniformAddReducer::call(const char *Name,
                                    std::vector<const Expr *> Args) {
  return M.create<ExprStmt>(
      M.create<CallExpr>(M.getTypes().getVoid(),
                         CallExpr::CalleeKind::Intrinsic, Name, -1,
                         std::move(Args)));
}

/// A copy of \p Body whose sites store into their registers instead.
BlockStmt *UniformAddReducer::replaceSites(const BlockStmt *Body) {
  BlockStmt *Out = B.block();
  for (const Stmt *S : Body->getBody()) {
    auto It = Registers.find(S);
    if (It != Registers.end()) {
      const auto *A = cast<AssignStmt>(S);
      auto [Sum, At] = It->second;
      if (At)
        Out->append(
            B.assign(B.ref(At), AssignOp::Assign, B.addrOf(A->getLHS())));
      Out->append(B.assign(B.ref(Sum), AssignOp::Assign, A->getRHS()));
      continue;
    }
    forEachNested(S, [&](const BlockStmt *Sub, bool) {
      const_cast<BlockStmt *>(Sub)->setBody(replaceSites(Sub)->getBody());
    });
    Out->append(S);
  }
  return Out;
}

void UniformAddReducer::remarkSite(const Site &S,
                                   const std::string &NotPerBlock) {
  if (!Diags.areRemarksEnabled() || !S.Add->getLoc().isValid())
    return;
  const std::string &Name = Targets.Names.at(S.Target);
  std::string Access =
      Name + "[" +
      irwalk::spell(cast<IndexExpr>(S.Add->getLHS())->getIndex()) + "]";
  if (NotPerBlock.empty()) {
    Diags.remark(S.Add->getLoc(),
                 "adjoint store to '" + Name +
                     "': summed per block, one atomicAdd per block and "
                     "iteration (the address " + Access +
                     " is the same in every thread at an iteration of the "
                     "reverse loop; the loop runs in step across the block, "
                     "from its largest trip count, threads past their own "
                     "count or outside the guard adding nothing)");
    return;
  }
  std::string Why =
      Targets.PerWarp ? "" : "; not per block: " + NotPerBlock;
  Diags.remark(S.Add->getLoc(),
               "adjoint store to '" + Name +
                   "': summed per warp, one atomicAdd per warp and iteration "
                   "(the address " + Access +
                   " is the same in every thread at an iteration of the "
                   "reverse loop; the loop runs in step across the warp, "
                   "from its largest trip count, lanes past their own count "
                   "or outside the guard adding nothing; the iteration's "
                   "adds of one type summed in one shuffle tree, skipped by "
                   "a warp whose lanes all add zero" + keyRemark() + Why +
                   ")");
}

/// What the per-warp remark says of the addresses (BlockUniformKey).
std::string UniformAddReducer::keyRemark() const {
  if (Key)
    return "; the addresses as 32-bit offsets from the key '" +
           Key->Key->getName() + "', checked once per iteration";
  return "; each address checked (no key: " + NoKey + ")";
}

void UniformAddReducer::remarkKept(const ForStmt *L, const std::string &Why) {
  if (!Diags.areRemarksEnabled())
    return;
  clang::SourceLocation Loc = L->getLoc();
  if (!Loc.isValid())
    forEachStmt(L->getBody(), [&](const Stmt *S) {
      if (!Loc.isValid() && isAccumulate(S) && targetOf(cast<AssignStmt>(S)))
        Loc = S->getLoc();
    });
  if (Loc.isValid())
    Diags.remark(Loc, "adjoint adds of this loop not summed per warp: " + Why);
}

void meshad::reduceUniformAdds(IRBuilder &B, Function &F,
                               const UniformAddTargets &Targets,
                               DiagnosticSink &Diags) {
  if (!F.isKernel() || Targets.Names.empty())
    return;
  UniformAddReducer(B, F, Targets, Diags).run();
}
