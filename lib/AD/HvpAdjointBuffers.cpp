//===- AD/HvpAdjointBuffers.cpp - Adjoint buffers in HVPs of host code ----===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//

#include "AD/HvpAdjointBuffers.h"
#include "AD/Analysis/Activity.h"
#include "IR/Traversal.h"
#include "Rules/ThrustRecipes.h"

#include "llvm/ADT/STLExtras.h"

using namespace meshad;
using namespace meshad::ir;
using llvm::dyn_cast;
using llvm::isa;

using VarSet = llvm::SmallPtrSetImpl<const Var *>;

static constexpr llvm::StringLiteral AdjointMemcpy =
    "meshad::cuda::adjointMemcpy";

static bool rootedIn(const Expr *E, const VarSet &Vars) {
  const Var *Root = E ? ActivityAnalysis::getRootVar(E) : nullptr;
  return Root && Vars.count(Root);
}

static bool isNullLiteral(const Expr *E) {
  const auto *L = dyn_cast<IntLitExpr>(E);
  return L && L->getValue() == 0 && E->getType()->isPointer();
}

/// The call of \p S (made for its effect, or whose value \p S stores) of a
/// helper that skips a null adjoint pointer: the adjoint helpers of Thrust
/// calls (meshad/codegen/ThrustAdjoint.h) and meshad::cuda::adjointMemcpy;
/// else null.
static const CallExpr *nullTolerantHelper(const Stmt *S) {
  const Expr *E = nullptr;
  if (const auto *ES = dyn_cast<ExprStmt>(S))
    E = ES->getExpr();
  else if (const auto *A = dyn_cast<AssignStmt>(S))
    E = A->getRHS();
  const auto *C = llvm::dyn_cast_or_null<CallExpr>(E);
  if (!C || C->getCalleeKind() != CallExpr::CalleeKind::Intrinsic)
    return nullptr;
  llvm::StringRef Name(C->getName());
  return Name.starts_with("meshad::thrust_ad::") || Name == AdjointMemcpy
             ? C
             : nullptr;
}

/// True when \p C only adds into the buffer it passes as argument \p I:
/// the source's adjoint of adjointMemcpy, the adjoint of an input range of
/// a Thrust adjoint helper (or of a capture of its user functor).
static bool onlyAddsTo(const CallExpr *C, unsigned I) {
  if (C->getName() == AdjointMemcpy) // DSrc += DDst; DDst = 0.
    return I == 1;
  const ThrustRecipe *R = lookupThrustAdjoint(C->getName(), C->getNumArgs());
  if (!R)
    return false;
  std::string Layout = thrustAdjointLayout(*R);
  return I >= Layout.size() ? !R->iteratesIndices() : Layout[I] == 'I';
}

std::optional<const Stmt *>
meshad::withoutBuffersInHelper(Module &M, IRCloner &C, const Stmt *S,
                               const VarSet &Vars, bool AddsOnly) {
  const CallExpr *H = nullTolerantHelper(S);
  if (!H)
    return std::nullopt;
  const auto *A = dyn_cast<AssignStmt>(S);
  bool DropValue = A && rootedIn(A->getLHS(), Vars);
  auto Drops = [&](unsigned I) {
    const Expr *Arg = H->getArg(I);
    return Arg->getType()->isPointer() && rootedIn(Arg, Vars) &&
           (!AddsOnly || onlyAddsTo(H, I));
  };
  bool Passes = false;
  for (unsigned I = 0; I < H->getNumArgs(); ++I)
    Passes |= Drops(I);
  if (!Passes && !DropValue)
    return std::nullopt;
  std::vector<const Expr *> Args;
  bool AnyAdjoint = false;
  for (unsigned I = 0; I < H->getNumArgs(); ++I) {
    const Expr *Arg = H->getArg(I);
    const Type *Ty = Arg->getType();
    bool Dropped = Drops(I);
    // Spelled with its type: the helpers deduce it from every pointer.
    Args.push_back(Dropped ? M.create<IntLitExpr>(Ty, 0,
                                                  "static_cast<" +
                                                      spellType(Ty) +
                                                      ">(nullptr)")
                           : C.clone(Arg));
    AnyAdjoint |= Ty->isPointer() && Ty->getElement()->isFloatingScalar() &&
                  !isNullLiteral(Args.back());
  }
  if (!AnyAdjoint)
    return nullptr;
  auto *Call = M.create<CallExpr>(H->getType(), CallExpr::CalleeKind::Intrinsic,
                                  H->getName(), -1, std::move(Args));
  Call->setLoc(H->getLoc());
  Stmt *New = A && !DropValue
                  ? static_cast<Stmt *>(M.create<AssignStmt>(
                        C.clone(A->getLHS()), A->getOp(), Call))
                  : M.create<ExprStmt>(Call);
  New->setLoc(S->getLoc());
  return New;
}

/// True for cudaMalloc, cudaMemset and cudaFree of the buffer \p C names
/// first: what they do to it is no read.
static bool managesBuffer(const CallExpr *C) {
  llvm::StringRef Name(C->getName());
  return C->getCalleeKind() == CallExpr::CalleeKind::Intrinsic &&
         (Name == "cudaMalloc" || Name == "cudaMemset" || Name == "cudaFree");
}

/// True when argument \p I of \p C is a null pointer or one of \p Dead.
static bool nullOrDead(const CallExpr *C, unsigned I, const VarSet &Dead) {
  return isNullLiteral(C->getArg(I)) || rootedIn(C->getArg(I), Dead);
}

/// True when \p C only writes the buffer it passes as argument \p I
/// (allocates, zeroes, frees, adds to it, or resets it for results that
/// are all null or \p Dead).
static bool onlyWrites(const CallExpr *C, unsigned I, const VarSet &Dead) {
  if (managesBuffer(C))
    return I == 0;
  if (C->getName() == AdjointMemcpy) // DSrc += DDst; DDst = 0.
    return I == 1 || (I == 0 && nullOrDead(C, 1, Dead));
  const ThrustRecipe *R = lookupThrustAdjoint(C->getName(), C->getNumArgs());
  if (!R)
    return false;
  std::string Layout = thrustAdjointLayout(*R);
  if (I >= Layout.size())
    return false;
  if (Layout[I] == 'I')
    return true;
  if (Layout[I] != 'R')
    return false;
  for (unsigned J = 0; J < Layout.size(); ++J)
    if (Layout[J] == 'I' && !nullOrDead(C, J, Dead))
      return false;
  return true;
}

/// The first-order adjoint buffers of \p F (locals) that nothing reads.
static llvm::SmallPtrSet<const Var *, 8> unreadBuffers(const Function &F) {
  llvm::SmallPtrSet<const Var *, 8> Dead;
  forEachStmt(F.getBody(), [&](const Stmt *S) {
    const auto *D = dyn_cast<DeclStmt>(S);
    const Var *V = D ? D->getVar() : nullptr;
    // A buffer declared from a value (a pointer into another) stays.
    if (V && !D->getInit() && V->getType()->isPointer() &&
        V->getType()->getElement()->isFloatingScalar() &&
        V->getRoles().has(VarRoles::Adjoint) &&
        !V->getRoles().has(VarRoles::Tangent))
      Dead.insert(V);
  });
  for (bool Changed = true; Changed && !Dead.empty();) {
    Changed = false;
    forEachStmt(F.getBody(), [&](const Stmt *S) {
      // A candidate's own declaration (no initializer) is no use; a
      // pointer declared from one is a read (its alias may be read).
      if (const auto *D = dyn_cast<DeclStmt>(S); D && !D->getInit())
        return;
      const auto *ES = dyn_cast<ExprStmt>(S);
      const auto *C = ES ? dyn_cast<CallExpr>(ES->getExpr()) : nullptr;
      for (const Expr *E : ownExprs(S))
        forEachExpr(E, [&](const Expr *X) {
          const auto *R = dyn_cast<VarRefExpr>(X);
          if (!R || !Dead.count(R->getVar()))
            return;
          // Each argument that names it must only write it.
          bool Written = false, Read = false;
          for (unsigned I = 0; C && I < C->getNumArgs(); ++I)
            if (ActivityAnalysis::getRootVar(C->getArg(I)) == R->getVar())
              (onlyWrites(C, I, Dead) ? Written : Read) = true;
          Written &= !Read;
          if (!Written) {
            Dead.erase(R->getVar());
            Changed = true;
          }
        });
    });
  }
  return Dead;
}

void meshad::dropUnreadAdjointBuffers(Module &M, Function &F) {
  llvm::SmallPtrSet<const Var *, 8> Dead = unreadBuffers(F);
  if (Dead.empty())
    return;
  IRCloner C(M);
  C.setStmtHook([&](const Stmt *S) -> std::optional<const Stmt *> {
    if (const auto *D = dyn_cast<DeclStmt>(S); D && Dead.count(D->getVar()))
      return nullptr;
    const auto *ES = dyn_cast<ExprStmt>(S);
    const auto *Call = ES ? dyn_cast<CallExpr>(ES->getExpr()) : nullptr;
    if (Call && managesBuffer(Call) && rootedIn(Call->getArg(0), Dead))
      return nullptr;
    return withoutBuffersInHelper(M, C, S, Dead);
  });
  F.setBody(C.cloneBlock(F.getBody()));
}
