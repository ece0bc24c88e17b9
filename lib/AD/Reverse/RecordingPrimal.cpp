//===- AD/Reverse/RecordingPrimal.cpp - Callees that log overwrites -------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//

#include "AD/Reverse/RecordingPrimal.h"
#include "AD/Analysis/Activity.h"
#include "IR/Builder.h"
#include "IR/Clone.h"
#include "IR/Intrinsics.h"
#include "IR/NameScope.h"
#include "IR/Traversal.h"

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringRef.h"

#include <set>

using namespace meshad;
using namespace meshad::ir;
using llvm::cast;
using llvm::dyn_cast;

namespace {
/// Pointer variables of a function that designate memory its caller gave
/// it: pointer parameters, and local pointers only ever set from them.
class CallerMemory {
public:
  explicit CallerMemory(const ir::Function &F) {
    for (Var *P : F.getParams())
      if (P->getType()->isPointer())
        Aliases.insert(P);
    if (!F.getBody())
      return;
    // Local pointers assigned only from aliases (q = p + 1), to a fixpoint.
    bool Changed = true;
    while (Changed) {
      Changed = false;
      llvm::DenseMap<const Var *, bool> AllFromAliases;
      forEachStmt(F.getBody(), [&](const Stmt *S) {
        const Var *Target = nullptr;
        const Expr *Value = nullptr;
        if (const auto *D = dyn_cast<DeclStmt>(S))
          Target = D->getVar(), Value = D->getInit();
        else if (const auto *A = dyn_cast<AssignStmt>(S))
          if (const auto *R = dyn_cast<VarRefExpr>(A->getLHS()))
            Target = R->getVar(),
            Value = A->getOp() == AssignOp::Assign ? A->getRHS() : nullptr;
        if (!Target || !Target->getType()->isPointer() || Target->isParam())
          return;
        bool FromAlias =
            !Value || Aliases.count(ActivityAnalysis::getRootVar(Value));
        auto [It, New] = AllFromAliases.try_emplace(Target, FromAlias);
        if (!New)
          It->second = It->second && FromAlias;
      });
      for (auto &[V, All] : AllFromAliases)
        if (All && Aliases.insert(V).second)
          Changed = true;
    }
  }
  bool contains(const Var *V) const { return V && Aliases.count(V); }

private:
  llvm::SmallPtrSet<const Var *, 8> Aliases;
};

/// The pointer variable \p LValue stores through, or null for a store to a
/// variable itself.
const Var *storedThrough(const Expr *LValue) {
  if (llvm::isa<VarRefExpr>(LValue))
    return nullptr;
  return ActivityAnalysis::getRootVar(LValue);
}

/// True when \p C is an atomic update of memory in \p Memory.
bool isAtomicOn(const CallExpr *C, const CallerMemory &Memory) {
  const IntrinsicInfo *I = lookupIntrinsic(C);
  return I && I->isAtomic() && I->AddrArg >= 0 &&
         unsigned(I->AddrArg) < C->getNumArgs() &&
         Memory.contains(ActivityAnalysis::getRootVar(C->getArg(I->AddrArg)));
}

/// A Thrust primitive that may write memory of the caller (its writes are
/// not logged: Rules/ThrustRecipes.def has no undo recipe).
bool isThrustWriteOn(const CallExpr *C, const CallerMemory &Memory) {
  if (C->getCalleeKind() != CallExpr::CalleeKind::Intrinsic ||
      !llvm::StringRef(C->getName()).starts_with("thrust::"))
    return false;
  for (const Expr *A : C->getArgs())
    if (A->getType()->isPointer() &&
        Memory.contains(ActivityAnalysis::getRootVar(A)))
      return true;
  return false;
}

bool writesThrough(const ir::Function *F, std::set<const ir::Function *> &Seen) {
  if (!F->getBody() || !Seen.insert(F).second)
    return false;
  CallerMemory Memory(*F);
  bool Writes = false;
  forEachStmt(F->getBody(), [&](const Stmt *S) {
    if (const auto *A = dyn_cast<AssignStmt>(S)) {
      const Var *Root = storedThrough(A->getLHS());
      Writes |= Root && Root->getType()->isPointer();
    }
    for (const Expr *E : ownExprs(S))
      forEachExpr(E, [&](const Expr *X) {
        const auto *C = dyn_cast<CallExpr>(X);
        if (!C)
          return;
        if (C->getCalleeKind() == CallExpr::CalleeKind::User) {
          Writes |= writesThrough(C->getUserCallee(), Seen);
          return;
        }
        const IntrinsicInfo *I = lookupIntrinsic(C);
        Writes |= I && I->writesMemory();
      });
  });
  return Writes;
}
} // namespace

using ParamSet = std::set<std::pair<const ir::Function *, unsigned>>;

static bool writesThroughParamOf(const ir::Function &F, unsigned I,
                                 ParamSet &Seen) {
  const Var *P = F.getParam(I);
  if (!F.getBody() || !P->getType()->isPointer() || !Seen.insert({&F, I}).second)
    return false;
  // Pointers set from P (q = P + 1) designate its memory too.
  llvm::SmallPtrSet<const Var *, 4> FromP{P};
  forEachStmt(F.getBody(), [&](const Stmt *S) {
    if (const auto *D = dyn_cast<DeclStmt>(S))
      if (D->getVar()->getType()->isPointer() && D->getInit() &&
          FromP.count(ActivityAnalysis::getRootVar(D->getInit())))
        FromP.insert(D->getVar());
    if (const auto *A = dyn_cast<AssignStmt>(S))
      if (const auto *R = dyn_cast<VarRefExpr>(A->getLHS()))
        if (R->getType()->isPointer() && A->getRHS() &&
            FromP.count(ActivityAnalysis::getRootVar(A->getRHS())))
          FromP.insert(R->getVar());
  });
  bool Writes = false;
  forEachStmt(F.getBody(), [&](const Stmt *S) {
    if (const auto *A = dyn_cast<AssignStmt>(S))
      Writes |= FromP.count(storedThrough(A->getLHS())) > 0;
    for (const Expr *E : ownExprs(S))
      forEachExpr(E, [&](const Expr *X) {
        const auto *C = dyn_cast<CallExpr>(X);
        if (!C)
          return;
        for (unsigned K = 0; K < C->getNumArgs(); ++K) {
          if (!FromP.count(ActivityAnalysis::getRootVar(C->getArg(K))))
            continue;
          if (C->getCalleeKind() == CallExpr::CalleeKind::User)
            Writes |= K < C->getUserCallee()->getNumParams() &&
                      writesThroughParamOf(*C->getUserCallee(), K, Seen);
          else if (const IntrinsicInfo *I = lookupIntrinsic(C))
            Writes |= I->writesArg(K);
        }
      });
  });
  return Writes;
}

bool RecordingPrimals::writesThroughParam(const ir::Function &F, unsigned I) {
  ParamSet Seen;
  return writesThroughParamOf(F, I, Seen);
}

bool RecordingPrimals::writesThroughPointers(const ir::Function *F) {
  std::set<const ir::Function *> Seen;
  return writesThrough(F, Seen);
}

namespace {
/// The body of one recording variant: the primal's, each store through
/// memory the caller gave it preceded by its undo record, each call of a
/// callee that writes such memory turned into a call of the callee's
/// recording variant; an error at what cannot be recorded.
class RecordingBody {
public:
  RecordingBody(RecordingPrimals &Recordings, Module &M, DiagnosticSink &Diags,
                DerivedFunctionSet &Derived, const ir::Function &Primal,
                ir::Function &Result, Var *Log)
      : Recordings(Recordings), M(M), Diags(Diags), Derived(Derived),
        Primal(Primal), Result(Result), Log(Log), B(M), Memory(Primal),
        Cloner(M) {
    Cloner.setExprHook([this](const Expr *E) { return recordCall(E); });
    Cloner.setStmtHook([this](const Stmt *S) { return recordStore(S); });
  }

  /// The recording body; false after an error.
  bool build() {
    Result.setBody(Cloner.cloneBlock(Primal.getBody()));
    return !Failed;
  }

private:
  RecordingPrimals &Recordings;
  Module &M;
  DiagnosticSink &Diags;
  DerivedFunctionSet &Derived;
  const ir::Function &Primal;
  ir::Function &Result;
  Var *Log;
  IRBuilder B;
  CallerMemory Memory;
  IRCloner Cloner;
  bool Failed = false;

  void error(clang::SourceLocation Loc, const std::string &Message) {
    Diags.error(Loc, Message);
    Failed = true;
  }

  /// A call of a user callee that writes the caller's memory: the call of
  /// its recording variant with the log; null to clone \p E as it is.
  const Expr *recordCall(const Expr *E) {
    const auto *C = dyn_cast<CallExpr>(E);
    if (!C || C->getCalleeKind() != CallExpr::CalleeKind::User ||
        !RecordingPrimals::writesThroughPointers(C->getUserCallee()))
      return nullptr;
    // The callee may write only what the pointers passed to it designate:
    // this function's own locals (`h(&k)`, a reference parameter) need no
    // record, and a record of them would outlive them (the fuzzer: seed 1
    // program 73, fuzz/regressions/record-local-reference.cpp).
    bool Caller = false, Own = false;
    for (const Expr *A : C->getArgs())
      if (A->getType()->isPointer() && !A->getType()->getElement()->isConst())
        (Memory.contains(ActivityAnalysis::getRootVar(A)) ? Caller : Own) =
            true;
    if (!Caller)
      return nullptr;
    if (Own) {
      error(C->getLoc(),
            "cannot record the call of '" + C->getUserCallee()->getName() +
                "': it may write both memory that '" + Primal.getName() +
                "' was given and locals of '" + Primal.getName() +
                "'; write the local's result back after the call");
      return nullptr;
    }
    ir::Function *Rec = Recordings.get(C->getUserCallee(), C->getLoc());
    if (!Rec) {
      Failed = true;
      return nullptr;
    }
    Derived.addCall(&Result, Rec);
    std::vector<const Expr *> Args;
    for (const Expr *A : C->getArgs())
      Args.push_back(Cloner.clone(A));
    Args.push_back(B.ref(Log));
    auto *New = M.create<CallExpr>(C->getType(), Rec, std::move(Args));
    New->setLoc(C->getLoc());
    return New;
  }

  /// An error for a call statement whose update of the caller's memory
  /// cannot be undone (an atomic, a Thrust primitive); false then.
  bool undoableCall(const Stmt *S) {
    const auto *ES = dyn_cast<ExprStmt>(S);
    const auto *C = ES ? dyn_cast<CallExpr>(ES->getExpr()) : nullptr;
    if (!C)
      return true;
    if (isAtomicOn(C, Memory))
      error(C->getLoc(), "cannot undo the atomic update of memory that '" +
                             Primal.getName() +
                             "' was given: its caller's reverse sweep needs "
                             "that memory as it was before the call");
    else if (isThrustWriteOn(C, Memory))
      error(C->getLoc(), "cannot undo " + C->getName() + " on memory that '" +
                             Primal.getName() +
                             "' was given: its caller's reverse sweep needs "
                             "that memory as it was before the call");
    else
      return true;
    return false;
  }

  /// A store through the caller's memory: its undo record, then the store;
  /// std::nullopt to clone \p S as it is.
  std::optional<const Stmt *> recordStore(const Stmt *S) {
    const Expr *Target = nullptr;
    if (const auto *A = dyn_cast<AssignStmt>(S))
      Target = A->getLHS();
    const Var *Root = Target ? storedThrough(Target) : nullptr;
    if (!undoableCall(S))
      return std::nullopt;
    if (!Root || !Root->getType()->isPointer())
      return std::nullopt;
    if (!Memory.contains(Root)) {
      error(S->getLoc(), "cannot tell whose memory '" + Root->getName() +
                             "' designates: its caller's reverse sweep "
                             "needs what '" + Primal.getName() +
                             "' overwrites");
      return std::nullopt;
    }
    const auto *A = cast<AssignStmt>(S);
    const Expr *LV = Cloner.clone(Target);
    auto *Record = M.create<ExprStmt>(M.create<CallExpr>(
        M.getTypes().getVoid(), CallExpr::CalleeKind::Intrinsic,
        "meshad::undoRecord", -1,
        std::vector<const Expr *>{B.ref(Log), B.addrOf(LV)}));
    Record->setLoc(S->getLoc());
    AssignStmt *Store = B.assign(LV, A->getOp(), Cloner.clone(A->getRHS()));
    Store->setLoc(S->getLoc());
    return M.create<BlockStmt>(std::vector<const Stmt *>{Record, Store});
  }
};
} // namespace

ir::Function *RecordingPrimals::get(ir::Function *Primal,
                                    clang::SourceLocation CallLoc) {
  if (!checkDefinitionVisible(*Primal, CallLoc, Diags))
    return nullptr;
  std::string Name = baseName(*Primal) + "_record";
  std::string Key = DerivedFunctionSet::keyFor(Primal, Name);
  if (ir::Function *F = Derived.lookup(Key))
    return F;
  ir::Function *Result =
      Derived.create(M, Primal, Name, Primal->getReturnType());
  ir::NameScope Names;
  Names.addFunction(*Primal);
  std::string LogName = Names.unique("_undo");
  for (Var *P : Primal->getParams())
    Result->addParam(P);
  Var *Log = M.createVar(
      LogName, M.getTypes().getPointer(M.getTypes().getOpaque("meshad::UndoLog")),
      Var::Storage::Param);
  Result->addParam(Log);
  RecordingBody Body(*this, M, Diags, Derived, *Primal, *Result, Log);
  return Body.build() ? Result : nullptr;
}
