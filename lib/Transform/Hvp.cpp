//===- Transform/Hvp.cpp - Hessian-vector products ------------------------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//

#include "Transform/Hvp.h"
#include "Analysis/Activity.h"
#include "Analysis/ReverseNeeds.h"
#include "GPU/LowerAccumulations.h"
#include "IR/Traversal.h"
#include "Transform/DeadLocals.h"

using namespace meshad;
using namespace meshad::ir;
using llvm::cast;
using llvm::dyn_cast;
using llvm::isa;

bool HvpTransformer::findOutputs(const Function &Primal,
                                 const std::vector<bool> &Selected,
                                 std::vector<bool> &Outputs,
                                 clang::SourceLocation Loc) {
  Outputs.assign(Primal.getNumParams(), false);
  bool Any = false;
  for (unsigned I = 0; I < Primal.getNumParams(); ++I) {
    const Var *P = Primal.getParam(I);
    if (!P->getType()->isPointer() || !P->getType()->isDifferentiable() ||
        !writesMemoryOf(Primal.getBody(), P))
      continue;
    if (Selected[I]) {
      Diags.error(Loc, "meshad::hvp takes the Hessian w.r.t. inputs; '" +
                           Primal.getName() + "' writes '" + P->getName() +
                           "' (select only parameters it reads)");
      return false;
    }
    Outputs[I] = Any = true;
  }
  bool Returns = Primal.getReturnType()->isDifferentiableValue();
  if (Returns && Any) {
    Diags.error(Loc, "meshad::hvp of '" + Primal.getName() +
                         "': a function that returns a value and also writes "
                         "arrays is not supported yet (the Hessian is of its "
                         "return value)");
    return false;
  }
  if (!Returns && !(Primal.isKernel() && Any)) {
    Diags.error(Loc, "meshad::hvp needs a scalar: a function returning a "
                     "floating-point value, or a kernel writing outputs "
                     "(whose seeds weigh them); '" +
                         Primal.getName() + "' is neither");
    return false;
  }
  return true;
}

/// Removes from \p Block, at any depth, the statements that store into
/// memory rooted at \p Buffer (plain, compound, Accumulate, atomics).
static void removeStoresInto(const BlockStmt *Block, const Var *Buffer) {
  if (!Block)
    return;
  auto StoresInto = [&](const Stmt *S) {
    if (const auto *A = dyn_cast<AssignStmt>(S))
      return ActivityAnalysis::getRootVar(A->getLHS()) == Buffer;
    const auto *E = dyn_cast<ExprStmt>(S);
    const auto *C = E ? dyn_cast<CallExpr>(E->getExpr()) : nullptr;
    return C && C->getCalleeKind() == CallExpr::CalleeKind::Intrinsic &&
           llvm::StringRef(C->getName()).starts_with("atomic") &&
           C->getNumArgs() > 0 &&
           ActivityAnalysis::getRootVar(C->getArg(0)) == Buffer;
  };
  std::vector<const Stmt *> Kept;
  for (const Stmt *S : Block->getBody()) {
    if (StoresInto(S))
      continue;
    if (const auto *Sub = dyn_cast<BlockStmt>(S))
      removeStoresInto(Sub, Buffer);
    else if (const auto *I = dyn_cast<IfStmt>(S)) {
      removeStoresInto(I->getThen(), Buffer);
      removeStoresInto(I->getElse(), Buffer);
    } else if (const auto *F = dyn_cast<ForStmt>(S)) {
      removeStoresInto(F->getBody(), Buffer);
    } else if (const auto *W = dyn_cast<WhileStmt>(S)) {
      removeStoresInto(W->getBody(), Buffer);
    } else if (const auto *D = dyn_cast<DoStmt>(S)) {
      removeStoresInto(D->getBody(), Buffer);
    }
    Kept.push_back(S);
  }
  const_cast<BlockStmt *>(Block)->setBody(std::move(Kept));
}

bool HvpTransformer::dropBuffer(Function &H, const Var *Buffer,
                                const std::string &Of,
                                clang::SourceLocation Loc) {
  removeStoresInto(H.getBody(), Buffer);
  clang::SourceLocation Use;
  forEachStmt(H.getBody(), [&](const Stmt *S) {
    for (const Expr *E : ownExprs(S)) {
      // The innermost call around the use, else the statement, names it.
      clang::SourceLocation Around = S->getLoc();
      forEachExpr(E, [&](const Expr *X) {
        if (isa<CallExpr>(X) && X->getLoc().isValid())
          Around = X->getLoc();
        const auto *R = dyn_cast<VarRefExpr>(X);
        if (R && R->getVar() == Buffer && Use.isInvalid())
          Use = Around.isValid() ? Around : Loc;
      });
    }
  });
  if (Use.isInvalid())
    return true;
  Diags.error(Use.isValid() ? Use : Loc,
              "meshad::hvp: the gradient w.r.t. '" + Of +
                  "' is passed to a callee or read back here; Hessian-vector "
                  "products through callees that take '" + Of +
                  "' by pointer are not supported yet (pass the elements "
                  "as scalars)");
  return false;
}

ir::Function *HvpTransformer::deriveHvp(Function *Primal,
                                        const std::vector<bool> &Selected,
                                        const std::string &Name,
                                        clang::SourceLocation Loc) {
  std::vector<bool> Outputs;
  if (!findOutputs(*Primal, Selected, Outputs, Loc))
    return nullptr;
  unsigned N = Primal->getNumParams();
  std::vector<bool> Inner(N);
  for (unsigned I = 0; I < N; ++I)
    Inner[I] = Selected[I] || Outputs[I];
  // 1. The gradient, unlowered. Output seeds are only read (KeepSeeds), so
  //    that the user's seed arrays stay as they are.
  Function *G = Reverse.deriveUnloweredGradient(
      Primal, Inner, derivedName(*Primal, Inner, "_grad") + "_inner", Loc,
      /*KeepSeeds=*/Primal->isKernel());
  if (!G)
    return nullptr;
  // 2. Forward mode over it: directions on the selected inputs; the
  //    tangents of their adjoints are the results.
  std::vector<ParamSeed> Seeds(G->getNumParams());
  std::vector<Var *> Buffers, Seeded;
  std::vector<std::string> BufferOf;
  for (unsigned I = 0, K = N; I < N; ++I) {
    if (!Inner[I])
      continue;
    Var *A = G->getParam(K);
    if (Selected[I]) {
      Seeds[I] = ParamSeed::tangent();
      Seeds[K] = ParamSeed::tangent();
      Buffers.push_back(A);
      BufferOf.push_back(Primal->getParam(I)->getName());
    } else {
      Seeded.push_back(A);
    }
    ++K;
  }
  Function *H = Forward.deriveRequest(G, Seeds, Name);
  Derived.remove(G);
  if (!H)
    return nullptr;
  // The tangent parameters follow G's, in G's parameter order.
  std::vector<Var *> Tangents;
  const std::vector<ParamSeed> &Final = Forward.getLastSeeds();
  std::map<const Var *, Var *> TangentOf;
  for (unsigned I = 0, T = G->getNumParams(); I < G->getNumParams(); ++I)
    if (Final[I].K == ParamSeed::Kind::Tangent)
      TangentOf[G->getParam(I)] = H->getParam(T++);
  for (Var *S : Seeded)
    if (TangentOf.count(S)) {
      Diags.error(Loc, "meshad::hvp of '" + Primal->getName() +
                           "': the seed of output '" + S->getName() +
                           "' would carry a derivative");
      return nullptr;
    }
  // 3. Drop the gradient's own buffers; 4. lower the adds.
  for (unsigned I = 0; I < Buffers.size(); ++I)
    if (!dropBuffer(*H, Buffers[I], BufferOf[I], Loc))
      return nullptr;
  std::vector<Var *> Params(Primal->getParams().begin(),
                            Primal->getParams().end());
  for (unsigned I = 0; I < N; ++I)
    if (Selected[I])
      Params.push_back(TangentOf.at(Primal->getParam(I)));
  std::map<const Var *, std::string> UserNames;
  for (unsigned I = 0; I < Buffers.size(); ++I) {
    Params.push_back(TangentOf.at(Buffers[I]));
    UserNames[Params.back()] = BufferOf[I];
  }
  Params.insert(Params.end(), Seeded.begin(), Seeded.end());
  H->setParams(std::move(Params));
  removeDeadLocals(*H);
  lowerAccumulations(M, *H, Diags, Reverse.getForceAtomics(), UserNames);
  return H;
}
