//===- AD/Forward/ForwardMode.cpp - Forward (tangent) mode ----------------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Entry points of forward mode and the per-function setup: parameters,
/// seeds and the activity analysis.
///
//===----------------------------------------------------------------------===//

#include "AD/Forward/ForwardMode.h"
#include "AD/Forward/ForwardFunction.h"

using namespace meshad;
using namespace meshad::ir;

//===----------------------------------------------------------------------===//
// ForwardModeTransformer
//===----------------------------------------------------------------------===//

ir::Function *
ForwardModeTransformer::deriveRequest(ir::Function *Primal,
                                      std::vector<ParamSeed> Seeds,
                                      const std::string &Name) {
  std::string Key = DerivedFunctionSet::keyFor(Primal, Name);
  if (ir::Function *F = Derived.lookup(Key))
    return F;
  const Type *RetTy = Primal->getReturnType();
  size_t Mark = Derived.entries().size();
  ir::Function *Result = Derived.create(
      M, Primal, Name,
      RetTy->isDifferentiableValue() ? RetTy : M.getTypes().getVoid());
  ForwardFunction FF(*this, M, Diags, Derived, Primal, Result,
                     std::move(Seeds), ForwardFunction::Flavor::Request);
  bool Ok = FF.run();
  LastSeeds = FF.getSeeds();
  if (!Ok) {
    Derived.truncate(Mark);
    return nullptr;
  }
  return Result;
}

ir::Function *
ForwardModeTransformer::derivePushforward(ir::Function *Primal,
                                          const std::vector<bool> &Active,
                                          clang::SourceLocation CallLoc) {
  if (!checkDefinitionVisible(*Primal, CallLoc, Diags))
    return nullptr;
  if (!checkStructResult(*Primal, Active, CallLoc, Diags))
    return nullptr;
  std::string Name = derivedName(*Primal, Active, "_pushforward");
  std::string Key = DerivedFunctionSet::keyFor(Primal, Name);
  if (ir::Function *F = Derived.lookup(Key))
    return F;
  const Type *RetTy = Primal->getReturnType();
  const Type *PFTy =
      RetTy->isDifferentiableValue() ? M.getTypes().getPair(RetTy) : RetTy;
  // Registered before the body is built so that recursion finds it.
  ir::Function *Result = Derived.create(M, Primal, Name, PFTy);
  std::vector<ParamSeed> Seeds;
  for (bool A : Active)
    Seeds.push_back(A ? ParamSeed::tangent() : ParamSeed::none());
  ForwardFunction FF(*this, M, Diags, Derived, Primal, Result,
                     std::move(Seeds), ForwardFunction::Flavor::Pushforward);
  if (!FF.run())
    return nullptr;
  return Result;
}

//===----------------------------------------------------------------------===//
// ForwardFunction: setup
//===----------------------------------------------------------------------===//

ForwardFunction::ForwardFunction(ForwardModeTransformer &Owner, Module &M,
                                 DiagnosticSink &Diags,
                                 DerivedFunctionSet &Derived,
                                 ir::Function *Primal, ir::Function *Result,
                                 std::vector<ParamSeed> Seeds, Flavor Kind)
    : Owner(Owner), M(M), B(M), Diags(Diags), Derived(Derived),
      Primal(Primal), Result(Result), Seeds(std::move(Seeds)), Kind(Kind) {
  this->Seeds.resize(Primal->getNumParams());
}

void ForwardFunction::error(clang::SourceLocation Loc, const std::string &Msg) {
  Diags.error(Loc.isValid() ? Loc : Primal->getLoc(), Msg);
  Failed = true;
}

const ParamSeed *ForwardFunction::seedOf(const Var *V) const {
  int I = Primal->getParamIndex(V);
  return I < 0 ? nullptr : &Seeds[I];
}

bool ForwardFunction::computeActivity() {
  llvm::SmallPtrSet<const Var *, 8> Initial, Unread;
  for (unsigned I = 0; I < Primal->getNumParams(); ++I) {
    if (Seeds[I].K != ParamSeed::Kind::None)
      Initial.insert(Primal->getParam(I));
    else if (Kind == Flavor::Pushforward)
      Unread.insert(Primal->getParam(I)); // The caller never reads it.
  }
  Activity = std::make_unique<ActivityAnalysis>(*Primal, Initial, &Unread);
  Activity->reportActiveGlobals(
      *Primal, [&](clang::SourceLocation L, const std::string &Msg) {
        error(L, Msg);
      });
  for (unsigned I = 0; I < Primal->getNumParams(); ++I) {
    Var *P = Primal->getParam(I);
    if (!Activity->isActive(P) || !P->getType()->isPointer())
      continue;
    ParamSeed &S = Seeds[I];
    if (S.K == ParamSeed::Kind::None && Kind == Flavor::Request)
      S = ParamSeed::tangent(); // Written output: its tangent is returned.
    else if (S.K == ParamSeed::Kind::None)
      error(Primal->getLoc(),
            "'" + Primal->getName() + "' writes derivative-carrying values "
            "through parameter '" + P->getName() +
            "', but the caller passes memory without a tangent");
  }
  return !Failed;
}

void ForwardFunction::addParameters() {
  for (Var *P : Primal->getParams())
    Result->addParam(P);
  for (unsigned I = 0; I < Primal->getNumParams(); ++I) {
    if (Seeds[I].K != ParamSeed::Kind::Tangent)
      continue;
    Var *P = Primal->getParam(I);
    const Type *Ty = P->getType()->isPointer() ? P->getType()
                                               : P->getType()->getUnqualified();
    Var *T =
        M.createVar(Names.derivative(P->getName()), Ty, Var::Storage::Param,
                    VarRoles::derivativeOf(P->getRoles(), VarRoles::Tangent));
    T->setReferenceParam(P->isReferenceParam()); // Printed `double &_d_acc`.
    Tangents[P] = T;
    Result->addParam(T);
  }
}

void ForwardFunction::seedLocals(BlockStmt *Out) {
  for (unsigned I = 0; I < Primal->getNumParams(); ++I) {
    Var *P = Primal->getParam(I);
    if (Tangents.count(P) || !P->getType()->isDifferentiableValue())
      continue;
    bool IsUnit = Seeds[I].K == ParamSeed::Kind::Unit;
    if (!IsUnit && !Activity->isActive(P))
      continue;
    // The selected scalar starts with tangent 1; other parameters that become
    // active later (x = x * y) start from 0.
    Var *T = tangentVar(P);
    Out->append(B.decl(T, IsUnit ? B.floatLit(T->getType(), 1.0)
                                 : B.zero(T->getType())));
  }
}

bool ForwardFunction::run() {
  if (!Primal->getBody()) {
    error(Primal->getLoc(), "cannot differentiate '" + Primal->getName() +
                                "': its definition is not visible here");
    return false;
  }
  if (!computeActivity())
    return false;
  // Every user identifier first: generated names never take one.
  Result->setDerivativeOrder(Primal->getDerivativeOrder() + 1);
  Names.setOrder(Result->getDerivativeOrder());
  Names.addFunction(*Primal);
  addParameters();
  BlockStmt *Body = B.block();
  seedLocals(Body);
  deriveBlock(Primal->getBody(), Body);
  Result->setBody(Body);
  return !Failed;
}

Var *ForwardFunction::tangentVar(Var *V) {
  auto It = Tangents.find(V);
  if (It != Tangents.end())
    return It->second;
  Var::Storage S = V->isShared() ? Var::Storage::Shared : Var::Storage::Local;
  Var *T = M.createVar(
      Names.derivative(V->getName()), V->getType()->getUnqualified(), S,
      VarRoles::derivativeOf(V->getRoles(), VarRoles::Tangent));
  Tangents[V] = T;
  return T;
}

std::string ForwardFunction::freshTempName() {
  return Names.numbered("_t");
}
