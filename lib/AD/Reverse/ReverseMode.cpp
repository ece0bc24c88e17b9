//===- AD/Reverse/ReverseMode.cpp - Reverse (adjoint) mode ----------------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Entry points of reverse mode and the per-function setup: normalization,
/// analyses, parameters and function-scope declarations.
///
//===----------------------------------------------------------------------===//

#include "AD/Reverse/ReverseMode.h"
#include "GPU/GpuPasses.h"
#include "IR/DynamicShared.h"
#include "IR/Traversal.h"
#include "Simplify/DeadLocals.h"
#include "AD/Reverse/JumpNormalizer.h"
#include "AD/Reverse/ReverseFunction.h"
#include "AD/Reverse/DeviceBufferHistory.h"
#include "AD/Reverse/ForwardFromOutputs.h"

using namespace meshad;
using namespace meshad::ir;
using llvm::cast;
using llvm::dyn_cast;

/// The type of the adjoint of a variable of type \p Ty: \p Ty without const
/// at any level (the adjoint of a pointer to const is written through).
/// True when \p Body takes the address of \p V (`h(&x)`, a reference
/// argument): a callee may overwrite it.
static bool takesAddressOf(const Stmt *Body, const Var *V) {
  bool Taken = false;
  forEachStmt(Body, [&](const Stmt *Sub) {
    for (const Expr *E : ownExprs(Sub))
      forEachExpr(E, [&](const Expr *X) {
        const auto *U = dyn_cast<UnaryExpr>(X);
        const auto *Ref =
            U && U->getOp() == UnaryOp::AddrOf
                ? dyn_cast<VarRefExpr>(U->getSub())
                : nullptr;
        Taken |= Ref && Ref->getVar() == V;
      });
  });
  return Taken;
}

static const Type *adjointType(TypeContext &Types, const Type *Ty) {
  Ty = Ty->getUnqualified();
  if (Ty->isPointer())
    return Types.getPointer(adjointType(Types, Ty->getElement()));
  if (Ty->isArray())
    return Types.getArray(adjointType(Types, Ty->getElement()),
                          Ty->getCount());
  return Ty;
}

using StoreCounts = llvm::DenseMap<const Var *, unsigned>;

/// Adds to \p Counts, for each of \p Outputs, the most statements that
/// store to it along one path through \p S (loop bodies counted once: a
/// store in a loop is rejected on its own). The branches of an if are
/// exclusive, so they count their maximum, not their sum: the normalizer
/// copies what follows an early return into the fall-through branch.
static void
countStoresOnOnePath(const Stmt *S,
                     const llvm::SmallPtrSetImpl<const Var *> &Outputs,
                     StoreCounts &Counts) {
  if (!S)
    return;
  if (const auto *A = dyn_cast<AssignStmt>(S)) {
    if (!llvm::isa<VarRefExpr>(A->getLHS()))
      if (const Var *Root = ActivityAnalysis::getRootVar(A->getLHS()))
        if (Outputs.count(Root))
          ++Counts[Root];
  } else if (const auto *Block = dyn_cast<BlockStmt>(S)) {
    for (const Stmt *Child : Block->getBody())
      countStoresOnOnePath(Child, Outputs, Counts);
  } else if (const auto *If = dyn_cast<IfStmt>(S)) {
    StoreCounts Then, Else;
    countStoresOnOnePath(If->getThen(), Outputs, Then);
    countStoresOnOnePath(If->getElse(), Outputs, Else);
    for (const auto &[Root, N] : Else)
      Then[Root] = std::max(Then.lookup(Root), N);
    for (const auto &[Root, N] : Then)
      Counts[Root] += N;
  } else if (const auto *For = dyn_cast<ForStmt>(S)) {
    countStoresOnOnePath(For->getInit(), Outputs, Counts);
    countStoresOnOnePath(For->getBody(), Outputs, Counts);
    countStoresOnOnePath(For->getInc(), Outputs, Counts);
  } else if (const auto *While = dyn_cast<WhileStmt>(S)) {
    countStoresOnOnePath(While->getBody(), Outputs, Counts);
  } else if (const auto *Do = dyn_cast<DoStmt>(S)) {
    countStoresOnOnePath(Do->getBody(), Outputs, Counts);
  }
}

/// The names of the selected parameters' adjoints ("_d_x"), taken before
/// the seed of a pullback's result, which gets what is left ("_d_y", or
/// "_d_y_1" when the primal has a parameter y).
static std::vector<std::string>
nameParamAdjoints(const ir::Function &Primal, const std::vector<bool> &Selected,
                  NameScope &Names) {
  std::vector<std::string> AdjointNames(Primal.getNumParams());
  for (unsigned I = 0; I < Primal.getNumParams(); ++I)
    if (Selected[I])
      AdjointNames[I] = Names.derivative(Primal.getParam(I)->getName());
  return AdjointNames;
}

ir::Function *ReverseModeTransformer::deriveGradient(
    ir::Function *Primal, const std::vector<bool> &Selected,
    const std::string &Name, clang::SourceLocation RequestLoc,
    bool KeepSeeds, bool WithValue, bool AfterPrimal) {
  return derive(Primal, Selected, Name, RequestLoc, KeepSeeds,
                /*Unlowered=*/false, WithValue, AfterPrimal);
}

ir::Function *ReverseModeTransformer::deriveUnloweredGradient(
    ir::Function *Primal, const std::vector<bool> &Selected,
    const std::string &Name, clang::SourceLocation RequestLoc,
    bool KeepSeeds) {
  return derive(Primal, Selected, Name, RequestLoc, KeepSeeds,
                /*Unlowered=*/true);
}

ir::Function *ReverseModeTransformer::derive(
    ir::Function *Primal, const std::vector<bool> &Selected,
    const std::string &Name, clang::SourceLocation RequestLoc, bool KeepSeeds,
    bool Unlowered, bool WithValue, bool AfterPrimal) {
  std::string Key = DerivedFunctionSet::keyFor(Primal, Name);
  if (ir::Function *F = Derived.lookup(Key))
    return F;
  size_t Mark = Derived.entries().size();
  // meshad::WithValue: the gradient returns what the primal returns.
  const Type *RetTy = WithValue ? Primal->getReturnType()->getUnqualified()
                                : M.getTypes().getVoid();
  ir::Function *Result = Derived.create(M, Primal, Name, RetTy);
  ReverseFunction RF(*this, M, Diags, Derived, Primal, Result, Selected,
                     ReverseFunction::Flavor::Gradient, RequestLoc);
  RF.setKeepSeeds(KeepSeeds);
  RF.setWithValue(WithValue);
  RF.setAfterPrimal(AfterPrimal);
  RF.setUnlowered(Unlowered);
  if (!RF.run()) {
    Derived.truncate(Mark);
    return nullptr;
  }
  return Result;
}

ir::Function *
ReverseModeTransformer::derivePullback(ir::Function *Primal,
                                       const std::vector<bool> &Active,
                                       const std::vector<bool> &Private,
                                       clang::SourceLocation CallLoc) {
  if (!checkDefinitionVisible(*Primal, CallLoc, Diags))
    return nullptr;
  if (!checkStructResult(*Primal, Active, CallLoc, Diags))
    return nullptr;
  std::string Name = derivedName(*Primal, Active, "_pullback");
  for (unsigned I = 0; I < Private.size(); ++I)
    if (Private[I])
      Name += "_local" + std::to_string(I);
  std::string Key = DerivedFunctionSet::keyFor(Primal, Name);
  if (ir::Function *F = Derived.lookup(Key))
    return F;
  ir::Function *Result =
      Derived.create(M, Primal, Name, M.getTypes().getVoid());
  ReverseFunction RF(*this, M, Diags, Derived, Primal, Result, Active,
                     ReverseFunction::Flavor::Pullback, CallLoc, Private);
  return RF.run() ? Result : nullptr;
}

//===----------------------------------------------------------------------===//
// ReverseFunction: setup
//===----------------------------------------------------------------------===//

ReverseFunction::ReverseFunction(ReverseModeTransformer &Owner, Module &M,
                                 DiagnosticSink &Diags,
                                 DerivedFunctionSet &Derived,
                                 ir::Function *Primal, ir::Function *Result,
                                 std::vector<bool> Selected, Flavor Kind,
                                 clang::SourceLocation RequestLoc,
                                 std::vector<bool> Private)
    : Owner(Owner), M(M), B(M), Diags(Diags), Derived(Derived),
      Primal(Primal), Result(Result), Selected(std::move(Selected)),
      Kind(Kind), RequestLoc(RequestLoc), Private(std::move(Private)) {
  this->Selected.resize(Primal->getNumParams());
  Adds.Target = Primal->getTarget();
  Adds.ForceAtomics = Owner.getForceAtomics();
  Adds.UniformSumsPerWarp = Owner.getUniformSumsPerWarp();
  Adds.OwnershipCrossCheck = Owner.getOwnershipCrossCheck();
  Adds.Primal = Primal;
  Adds.Gradient = Kind == Flavor::Gradient;
  Adds.FreshName = [this](const std::string &Prefix) {
    return Names.unique(Prefix);
  };
  Adds.NumberedName = [this](const std::string &Prefix) {
    return Names.numbered(Prefix);
  };
  this->Private.resize(Primal->getNumParams());
}

void ReverseFunction::error(clang::SourceLocation Loc,
                            const std::string &Msg) {
  Diags.error(Loc.isValid() ? Loc : RequestLoc, Msg);
  Failed = true;
}

std::string ReverseFunction::freshName(const std::string &Prefix) {
  return Names.numbered(Prefix);
}

ir::Var *ReverseFunction::newVar(const std::string &Prefix, const Type *Ty,
                                 const Expr *Init) {
  Var *V = M.createVar(freshName(Prefix), Ty, Var::Storage::Local,
                       Ty->isTape() ? VarRoles::Tape : VarRoles::Temporary);
  Decls->append(B.decl(V, Init));
  return V;
}

/// Collects local declarations so they can be declared at function scope:
/// the reverse sweep reads them outside their original scopes.
/// The type of a declaration hoisted to function scope, where it is
/// assigned: without const (`const double c[3] = {...}` too).
static const Type *hoistedType(TypeContext &Types, const Type *Ty) {
  if (!Ty->isArray())
    return Ty->getUnqualified();
  return Types.getArray(hoistedType(Types, Ty->getElement()), Ty->getCount());
}

void ReverseFunction::hoistDeclarations(const Stmt *S) {
  if (!S)
    return;
  switch (S->getKind()) {
  case Stmt::Kind::Block:
    for (const Stmt *Sub : cast<BlockStmt>(S)->getBody())
      hoistDeclarations(Sub);
    return;
  case Stmt::Kind::Decl: {
    Var *V = cast<DeclStmt>(S)->getVar();
    if (std::find(Hoisted.begin(), Hoisted.end(), V) != Hoisted.end())
      return;
    V->setName(Names.declare(V->getName()));
    V->setType(hoistedType(M.getTypes(), V->getType()));
    Hoisted.push_back(V);
    return;
  }
  case Stmt::Kind::If:
    hoistDeclarations(cast<IfStmt>(S)->getThen());
    hoistDeclarations(cast<IfStmt>(S)->getElse());
    return;
  case Stmt::Kind::For:
    hoistDeclarations(cast<ForStmt>(S)->getInit());
    hoistDeclarations(cast<ForStmt>(S)->getBody());
    return;
  case Stmt::Kind::While:
    hoistDeclarations(cast<WhileStmt>(S)->getBody());
    return;
  case Stmt::Kind::Do:
    hoistDeclarations(cast<DoStmt>(S)->getBody());
    return;
  default:
    return;
  }
}

bool ReverseFunction::checkOutputs() {
  for (unsigned I = 0; I < Primal->getNumParams(); ++I) {
    Var *P = Primal->getParam(I);
    if (Selected[I] || !P->getType()->isPointer() || !Activity->isActive(P))
      continue;
    error(RequestLoc,
          Kind == Flavor::Gradient
              ? "'" + Primal->getName() + "' writes values that depend on the "
                "selected inputs into '" + P->getName() +
                "'; add it to the argument spec so that its adjoint (the "
                "seed) can be passed"
              : "'" + Primal->getName() + "' writes derivative-carrying "
                "values through parameter '" + P->getName() +
                "', but the caller passes memory without an adjoint");
  }
  return !Failed;
}

bool ReverseFunction::prepare() {
  if (!Primal->getBody()) {
    error(Primal->getLoc(), "cannot differentiate '" + Primal->getName() +
                                "': its definition is not visible here");
    return false;
  }
  JumpNormalizer Normalizer(M, Diags);
  Body = Normalizer.normalize(Primal->getBody());
  if (!Body)
    return false;
  llvm::SmallPtrSet<const Var *, 8> Seeds, Unread;
  for (unsigned I = 0; I < Primal->getNumParams(); ++I)
    if (Selected[I])
      Seeds.insert(Primal->getParam(I));
    else if (Kind == Flavor::Pullback)
      Unread.insert(Primal->getParam(I)); // The caller never reads it.
  Activity = std::make_unique<ActivityAnalysis>(*Primal, Seeds, &Unread);
  Activity->reportActiveGlobals(
      *Primal, [&](clang::SourceLocation L, const std::string &Msg) {
        error(L, Msg);
      });
  if (Failed || !checkOutputs())
    return false;
  Needs = std::make_unique<ReverseNeeds>(*Body, *Activity);
  // A gradient kernel's outputs that nothing reads (y[i] = ..., atomicAdd
  // into E) are not stored again: their values are unspecified afterwards.
  if (Primal->isKernel() && Kind == Flavor::Gradient)
    WriteOnly = writeOnlyMemory(Body, Primal->getParams());
  forEachStmt(Body, [&](const Stmt *S) {
    if (const auto *A = dyn_cast<AssignStmt>(S))
      if (!llvm::isa<VarRefExpr>(A->getLHS()))
        if (const Var *Root = ActivityAnalysis::getRootVar(A->getLHS()))
          if (WriteOnly.count(Root))
            ++OutputStores[Root];
  });
  countStoresOnOnePath(Body, WriteOnly, OutputPathStores);
  Recompute = std::make_unique<Recomputation>(*Body);
  Invertible = std::make_unique<InvertibleUpdates>(*Body);
  // Every user identifier first: generated names never take one.
  Result->setDerivativeOrder(Primal->getDerivativeOrder() + 1);
  Names.setOrder(Result->getDerivativeOrder());
  Names.addFunction(*Primal);
  Names.addStmt(Body);
  for (const Var *P : Primal->getParams())
    Names.declare(P->getName());
  hoistDeclarations(Body);
  return true;
}

void ReverseFunction::addParameters() {
  for (Var *P : Primal->getParams())
    Result->addParam(P);
  std::vector<std::string> AdjointNames =
      nameParamAdjoints(*Primal, Selected, Names);
  const Type *RetTy = Primal->getReturnType();
  if (Kind == Flavor::Pullback && RetTy->isDifferentiableValue()) {
    Seed = M.createVar(Names.unique("_d_y"), RetTy->getUnqualified(),
                       Var::Storage::Param, VarRoles::Adjoint);
    Result->addParam(Seed);
  }
  for (unsigned I = 0; I < Primal->getNumParams(); ++I) {
    if (!Selected[I])
      continue;
    Var *P = Primal->getParam(I);
    const Type *Ty = P->getType();
    // Scalars get a pointer to their adjoint; arrays an adjoint array.
    const Type *AdjTy =
        Ty->isIndexable()
            ? M.getTypes().getPointer(Ty->getScalarElement()->getUnqualified())
            : M.getTypes().getPointer(Ty->getUnqualified());
    if (Ty->isPointer() && Ty->getElement()->isIndexable())
      AdjTy = adjointType(M.getTypes(), Ty);
    const std::string &Name = AdjointNames[I];
    Var *A =
        M.createVar(Name, AdjTy, Var::Storage::Param,
                    VarRoles::derivativeOf(P->getRoles(), VarRoles::Adjoint));
    A->setReferenceParam(P->isReferenceParam()); // Printed `double &_d_acc`.
    if (Kind == Flavor::Pullback && (!Ty->isIndexable() || Private[I]))
      Adds.ThreadPrivate.push_back(A);
    Adds.PrimalNames[A] = P->getName();
    // Unlowered: the lowering of the finished function decides these.
    bool Force = Owner.getForceAtomics() || Unlowered;
    if (!Ty->isIndexable() &&
        (assignsVar(Body, P) || takesAddressOf(Body, P))) {
      // The function overwrites its copy of the parameter (or lets a
      // callee overwrite it through its address): the reverse
      // sweep resets that copy's adjoint, which must not wipe what the
      // caller's adjoint held before (adjoints accumulate). A local holds
      // it, added to the caller's at the end.
      Var *Local =
          M.createVar(Names.unique(Name + "_local"), Ty->getUnqualified());
      Adjoints[P] = Local;
      LocalParamAdjoints.push_back({A, Local});
    }
    // The lowering decides how the kernel's adjoint arrays and scalars are
    // added to (a scalar's in a register summed per block, GPU/ScalarSums).
    if (Primal->isKernel() && Ty->isPointer() && !Force)
      Adds.KernelArrays.push_back({A, P});
    if (Primal->isKernel() && !Ty->isIndexable() && !Force)
      Adds.KernelScalars.push_back({A, P});
    Adjoints.try_emplace(P, A); // Unless it sums in a register (above).
    Result->addParam(A);
  }
}

void ReverseFunction::resetSeed(const Expr *AL, const Var *Root,
                                BlockStmt *Rev) {
  const Type *Ty = AL->getType()->getUnqualified();
  AssignStmt *Zero = B.assign(AL, AssignOp::Assign, B.zero(Ty));
  Zero->setSeedReset(Root->isParam());
  Rev->append(Zero);
  // The only store to a write-only output, outside loops: nothing after
  // this reads the seed, so the lowering may defer its reset (not under
  // KeepSeeds, where keep-seeds drops it).
  if (!KeepSeeds && LoopDepth == 0 && WriteOnly.count(Root) &&
      OutputStores.lookup(Root) == 1)
    Adds.LastSeedUses.insert(ActivityAnalysis::getRootVar(AL));
}

const ir::Stmt *ReverseFunction::marker(MarkerStmt::Region R) {
  return M.create<MarkerStmt>(R);
}

ir::Var *ReverseFunction::adjointVar(Var *V) {
  auto It = Adjoints.find(V);
  if (It != Adjoints.end())
    return It->second;
  const Type *Ty = adjointType(M.getTypes(), V->getType());
  Var::Storage S = V->isShared() ? Var::Storage::Shared : Var::Storage::Local;
  // "_d_x" when it is free, else numbered ("_d_x_1").
  Var *A =
      M.createVar(Names.derivative(V->getName()), Ty, S,
                  VarRoles::derivativeOf(V->getRoles(), VarRoles::Adjoint));
  const Expr *Init = nullptr;
  if (!V->isShared() && !Ty->isPointer())
    Init = B.zero(Ty);
  else if (isDynamicShared(*V))
    Init = dynamicSharedShadow(M, Ty);
  Decls->append(B.decl(A, Init));
  Adjoints[V] = A;
  return A;
}

void ReverseFunction::zeroSharedAdjoints(BlockStmt *Out) {
  bool Any = false;
  for (Var *V : Hoisted) {
    if (!V->isShared() || !Activity->isActive(V))
      continue;
    Var *A = adjointVar(V);
    if (isDynamicShared(*V)) { // Its size is known at run time only.
      Out->append(M.create<ExprStmt>(M.create<CallExpr>(
          M.getTypes().getVoid(), CallExpr::CalleeKind::Intrinsic,
          "meshad::zeroDynamicSharedShadow", -1,
          std::vector<const Expr *>{})));
      continue;
    }
    // Every thread of the block clears a strided part, then all wait.
    const Type *Int = M.getTypes().getInt("int");
    const Type *UInt = M.getTypes().getInt("unsigned int");
    auto Builtin = [&](BuiltinExpr::Builtin K, unsigned Dim) {
      return M.create<BuiltinExpr>(UInt, K, Dim);
    };
    using BK = BuiltinExpr::Builtin;
    const Expr *Tid = B.add(
        Builtin(BK::ThreadIdx, 0),
        B.mul(Builtin(BK::BlockDim, 0),
              B.add(Builtin(BK::ThreadIdx, 1),
                    B.mul(Builtin(BK::BlockDim, 1), Builtin(BK::ThreadIdx, 2)))));
    const Expr *Threads = B.mul(Builtin(BK::BlockDim, 0),
                                B.mul(Builtin(BK::BlockDim, 1),
                                      Builtin(BK::BlockDim, 2)));
    unsigned Count = 1;
    const Type *Elem = A->getType();
    while (Elem->isArray()) {
      Count *= Elem->getCount();
      Elem = Elem->getElement();
    }
    Var *I = M.createVar(freshName("_i"), Int);
    const Expr *Flat =
        B.cast(M.getTypes().getPointer(Elem), B.ref(A));
    auto *Loop = M.create<ForStmt>(
        B.decl(I, B.cast(Int, Tid)),
        B.binary(BinaryOp::Lt, B.ref(I), B.intLit(Count)),
        B.assign(B.ref(I), AssignOp::AddAssign, B.cast(Int, Threads)),
        M.create<BlockStmt>(std::vector<const Stmt *>{B.assign(
            B.index(Flat, B.ref(I)), AssignOp::Assign, B.zero(Elem))}));
    Out->append(Loop);
    Any = true;
  }
  if (Any)
    Out->append(M.create<ExprStmt>(
        M.create<CallExpr>(M.getTypes().getVoid(),
                           CallExpr::CalleeKind::Intrinsic, "__syncthreads",
                           -1, std::vector<const Expr *>{})));
}

bool ReverseFunction::run() {
  if (!prepare())
    return false;
  addParameters();
  Decls = B.block();
  for (Var *V : Hoisted)
    Decls->append(B.decl(V, nullptr));
  if (!prepareValue())
    return false;
  for (auto &[Adj, Local] : LocalParamAdjoints)
    Decls->append(B.decl(Local, B.zero(Local->getType())));
  BlockStmt *Zero = B.block();
  if (Primal->isKernel())
    zeroSharedAdjoints(Zero);
  // The sweep's own declarations follow these (the lowering puts the tiles,
  // then the launch-shape check, between).
  checkSeparateSeeds(Decls);
  Decls->append(marker(MarkerStmt::Region::SetupEnd));
  findDeferredFrees(Body);
  prepareSnapshots();
  BlockStmt *Fwd = B.block();
  BlockStmt *Rev = B.block();
  sweepBlock(Body, Fwd, Rev);
  if (Failed)
    return false;
  // The local copies of parameters' adjoints added to the caller's (in a
  // gradient kernel, the lowering sums them per block, GPU/ScalarSums).
  BlockStmt *Epilogue = B.block();
  for (auto &[Adj, Local] : LocalParamAdjoints) {
    const Expr *Target = B.unary(UnaryOp::Deref, B.ref(Adj), Local->getType());
    AssignStmt *Add = B.accumulate(Target, B.ref(Local));
    if (!Unlowered)
      Add->setLoc(Primal->getLoc());
    Epilogue->append(Add);
  }
  BlockStmt *Out = assemble({Decls, Zero, Fwd, Rev, Epilogue});
  finishValue(Out);
  Result->setBody(Out);
  if (KeepSeeds && !keepOutputSeeds())
    return false;
  removeDeadLocals(*Result);
  // The reverse sweep recomputes these before reading them.
  removeUnreadDefinitions(Fwd, Recomputed);
  if (AfterPrimal)
    replayFromOutputs(B, *Primal, *Result, Diags);
  return finish();
}

ir::BlockStmt *
ReverseFunction::assemble(std::initializer_list<BlockStmt *> Regions) {
  // Decls ends with its own marker, SetupEnd: the sweep's temporaries follow.
  using Region = MarkerStmt::Region;
  const Region After[] = {Region::SetupEnd, Region::ForwardBegin,
                          Region::ReverseBegin, Region::EpilogueBegin,
                          Region::EpilogueEnd};
  BlockStmt *Out = B.block();
  unsigned I = 0;
  for (const BlockStmt *Part : Regions) {
    for (const Stmt *S : Part->getBody())
      Out->append(S);
    if (I != 0)
      Out->append(marker(After[I]));
    ++I;
  }
  return Out;
}

bool ReverseFunction::keepOutputSeeds() {
  KeepSeedsFacts Facts;
  Facts.Primal = Primal;
  Facts.WriteOnly = WriteOnly;
  Facts.PathStores = OutputPathStores;
  Facts.RequestLoc = RequestLoc;
  for (unsigned I = 0; I < Primal->getNumParams(); ++I)
    if (Selected[I])
      if (const Var *A = Adjoints.lookup(Primal->getParam(I)))
        Facts.ParamOfAdjoint[A] = Primal->getParam(I);
  bool Kept = true;
  PassPipeline Passes(Diags, Owner.isVerifying());
  addKeepSeedsPass(Passes, Diags, std::move(Facts), Kept);
  return Passes.run(*Result, Primal) && Kept;
}

bool ReverseFunction::finish() {
  // Reverse mode's own output, target-independent, is valid IR before any
  // GPU lowering: forward mode composes over this form (AD/Hvp).
  if (Owner.isVerifying() && !Diags.hasErrors() &&
      !verifyGenerated(*Result, Primal, VerifyStage::Transformed,
                       "reverse mode", Diags))
    return false;
  if (Unlowered)
    return true; // The composition lowers the finished function.
  LoweringRequest Lowering;
  Lowering.Reverse = std::move(Adds);
  if (Primal->isKernel() && Kind == Flavor::Gradient) {
    Lowering.Kernel.emplace();
    Lowering.Kernel->FirstAdjoint = Primal->getNumParams();
    Lowering.Kernel->FreshName = [this](const std::string &Prefix) {
      return Names.unique(Prefix);
    };
  }
  PassPipeline Passes(Diags, Owner.isVerifying());
  addLoweringPasses(Passes, M, Diags, std::move(Lowering));
  return Passes.run(*Result, Primal);
}
