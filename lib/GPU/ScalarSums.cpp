//===- GPU/ScalarSums.cpp - Per-block sums of scalars' adjoints -----------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//

#include "GPU/ScalarSums.h"
#include "IR/Builder.h"
#include "IR/Clone.h"
#include "IR/Markers.h"
#include "IR/Traversal.h"

#include "llvm/ADT/DenseMap.h"

using namespace meshad;
using namespace meshad::ir;
using llvm::dyn_cast;

using Region = MarkerStmt::Region;

/// True when \p E is `*A`.
static bool isDerefOf(const Expr *E, const Var *A) {
  const auto *U = dyn_cast<UnaryExpr>(E);
  const auto *Ref = U && U->getOp() == UnaryOp::Deref
                        ? dyn_cast<VarRefExpr>(U->getSub())
                        : nullptr;
  return Ref && Ref->getVar() == A;
}

/// True when \p F uses \p A only as `*A`.
static bool onlyDereferenced(const Function &F, const Var *A) {
  unsigned Uses = 0, Derefs = 0;
  forEachStmt(F.getBody(), [&](const Stmt *S) {
    for (const Expr *E : ownExprs(S))
      forEachExpr(E, [&](const Expr *Sub) {
        const auto *Ref = dyn_cast<VarRefExpr>(Sub);
        Uses += Ref && Ref->getVar() == A;
        Derefs += isDerefOf(Sub, A);
      });
  });
  return Uses == Derefs;
}

size_t meshad::registersEnd(const Function &F) {
  const std::vector<const Stmt *> &Body = F.getBody()->getBody();
  size_t At = findMarker(*F.getBody(), Region::SetupEnd);
  if (At == NoMarker)
    At = 0;
  auto IsSharedAdjoint = [](const Stmt *S) {
    const auto *D = dyn_cast<DeclStmt>(S);
    return D && D->getVar()->isShared() &&
           D->getVar()->getRoles().has(VarRoles::Adjoint);
  };
  while (At > 0 && IsSharedAdjoint(Body[At - 1]))
    --At;
  return At;
}

namespace {

/// Gives the scalar parameters' adjoints of one gradient kernel their
/// registers.
class ScalarSummer {
public:
  ScalarSummer(Module &M, Function &F, AccumulationFacts &Facts)
      : M(M), F(F), B(M), Facts(Facts) {}

  void run() {
    for (const AdjointArray &S : Facts.KernelScalars)
      sum(S);
    if (Sums.empty())
      return;
    substituteRegisters();
    place();
  }

private:
  void sum(const AdjointArray &S) {
    Var *Adjoint = const_cast<Var *>(S.Adjoint);
    Var *Part = takeLocalCopy(Adjoint);
    if (!Part) {
      if (!onlyDereferenced(F, Adjoint))
        return; // Not a plain sum: its Accumulates keep their atomics.
      Part = M.createVar("", S.Param->getType()->getUnqualified());
      Registers[Adjoint] = Part;
    }
    Part->setName(Facts.FreshName(Adjoint->getName() + "_part"));
    Facts.BlockSums.push_back({Part, S.Param->getName()});
    Sums.push_back({Adjoint, Part});
  }

  /// The local copy of \p Adjoint, which the epilogue adds to it
  /// (`*_d_k += _d_k_local;`), with that add and its declaration removed;
  /// null without one.
  Var *takeLocalCopy(const Var *Adjoint) {
    BlockStmt &Body = *F.getBody();
    size_t Begin = findMarker(Body, Region::EpilogueBegin);
    if (Begin == NoMarker)
      return nullptr;
    std::vector<const Stmt *> Stmts = Body.getBody();
    for (size_t I = Begin + 1; I < Stmts.size(); ++I) {
      const auto *A = dyn_cast<AssignStmt>(Stmts[I]);
      if (llvm::isa<MarkerStmt>(Stmts[I]))
        break;
      if (!A || A->getOp() != AssignOp::Accumulate ||
          !isDerefOf(A->getLHS(), Adjoint))
        continue;
      const auto *Ref = dyn_cast<VarRefExpr>(A->getRHS());
      if (!Ref || Ref->getVar()->isParam())
        return nullptr;
      Var *Local = Ref->getVar();
      Stmts.erase(Stmts.begin() + I);
      llvm::erase_if(Stmts, [&](const Stmt *S) {
        const auto *D = dyn_cast<DeclStmt>(S);
        return D && D->getVar() == Local;
      });
      Body.setBody(std::move(Stmts));
      return Local;
    }
    return nullptr;
  }

  /// The sweep's `*_d_k` become the new registers.
  void substituteRegisters() {
    if (Registers.empty())
      return;
    IRCloner C(M);
    C.setExprHook([&](const Expr *E) -> const Expr * {
      const auto *U = dyn_cast<UnaryExpr>(E);
      if (!U || U->getOp() != UnaryOp::Deref)
        return nullptr;
      const auto *Ref = dyn_cast<VarRefExpr>(U->getSub());
      Var *Part = Ref ? Registers.lookup(Ref->getVar()) : nullptr;
      return Part ? B.ref(Part) : nullptr;
    });
    F.setBody(C.cloneBlock(F.getBody()));
  }

  /// The registers declared with the function's registers, in parameter
  /// order; reduced per block first in the epilogue.
  void place() {
    std::vector<const Stmt *> Decls, Reductions;
    for (auto &[Adjoint, Part] : Sums) {
      Decls.push_back(B.decl(Part, B.zero(Part->getType())));
      Reductions.push_back(M.create<ExprStmt>(M.create<CallExpr>(
          M.getTypes().getVoid(), CallExpr::CalleeKind::Intrinsic,
          "meshad::blockReduceAtomicAdd", -1,
          std::vector<const Expr *>{B.ref(Adjoint), B.ref(Part)})));
    }
    std::vector<const Stmt *> Body = F.getBody()->getBody();
    Body.insert(Body.begin() + registersEnd(F), Decls.begin(), Decls.end());
    F.getBody()->setBody(std::move(Body));
    Body = F.getBody()->getBody();
    size_t Begin = findMarker(*F.getBody(), Region::EpilogueBegin);
    size_t At = Begin == NoMarker ? Body.size() : Begin + 1;
    Body.insert(Body.begin() + At, Reductions.begin(), Reductions.end());
    F.getBody()->setBody(std::move(Body));
  }

  Module &M;
  Function &F;
  IRBuilder B;
  AccumulationFacts &Facts;
  /// The new registers of the adjoints the sweep adds to directly.
  llvm::DenseMap<const Var *, Var *> Registers;
  /// (adjoint parameter, register), in parameter order.
  std::vector<std::pair<Var *, Var *>> Sums;
};

} // namespace

void meshad::sumScalarsPerBlock(Module &M, Function &F,
                                AccumulationFacts &Facts) {
  if (!Facts.Gradient || Facts.ForceAtomics || !F.isKernel() ||
      Facts.KernelScalars.empty())
    return;
  ScalarSummer(M, F, Facts).run();
}
