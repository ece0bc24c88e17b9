//===- AD/Reverse/ReverseHost.cpp - Reverse mode of GPU host code ---------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Host functions that allocate device buffers, copy and launch kernels:
/// - cudaMalloc(&p, n) also allocates and zeroes the adjoint buffer _d_p;
///   both are freed at the end of the reverse sweep (a cudaFree(p) in the
///   forward sweep is deferred there);
/// - cudaMemcpy(dst, src, n, kind) reverses to _d_src += _d_dst; _d_dst = 0
///   (meshad::cuda::adjointMemcpy);
/// - cudaMemset(p, v, n) reverses to zeroing _d_p;
/// - a launch k<<<g, b>>>(args) reverses to the launch of k's gradient
///   kernel with the adjoint buffers, in reverse order of the launches;
///   a buffer that gradient reads and that the launch or a later operation
///   overwrites is copied before the launch and restored before its
///   gradient (meshad::cuda::DeviceSnapshots, DeviceBufferHistory: the
///   copy is of the whole allocation that holds the buffer, found at run
///   time);
/// - a launch whose buffer arguments may be the same memory (`k(x, x)`)
///   gives each read-only one of them a zeroed shadow adjoint buffer
///   (meshad::cuda::shadowAdjoint), folded back after the gradient launch
///   (meshad::cuda::foldShadow): the gradient kernel resets the adjoint of
///   what it writes after adding into the adjoints of what it reads, and
///   two parameters' adds may meet on one element.
///
//===----------------------------------------------------------------------===//

#include "AD/Reverse/ReverseFunction.h"
#include "AD/Reverse/DeviceBufferHistory.h"
#include "AD/Reverse/ReverseHostRanges.h"
#include "Analysis/IRWalk.h"
#include "IR/DynamicShared.h"

#include "llvm/ADT/STLExtras.h"

using namespace meshad;
using namespace meshad::ir;
using llvm::cast;
using llvm::dyn_cast;

static const Expr *stripCasts(const Expr *E) {
  while (const auto *C = dyn_cast<CastExpr>(E))
    E = C->getSub();
  return E;
}

static const Expr *intrinsicCall(Module &M, const Type *Ty,
                                 const std::string &Name,
                                 std::vector<const Expr *> Args) {
  return M.create<CallExpr>(Ty, CallExpr::CalleeKind::Intrinsic, Name, -1,
                            std::move(Args));
}

void ReverseFunction::findDeferredFrees(const Stmt *S) {
  if (!S)
    return;
  if (const auto *B = dyn_cast<BlockStmt>(S)) {
    for (const Stmt *Sub : B->getBody())
      findDeferredFrees(Sub);
  } else if (const auto *I = dyn_cast<IfStmt>(S)) {
    findDeferredFrees(I->getThen());
    findDeferredFrees(I->getElse());
  } else if (const auto *E = dyn_cast<ExprStmt>(S)) {
    const auto *C = dyn_cast<CallExpr>(E->getExpr());
    if (C && C->getNumArgs() == 1 &&
        (C->getName() == "cudaFree" || C->getName() == "meshad::deleteArray"))
      if (const Var *P = ActivityAnalysis::getRootVar(C->getArg(0)))
        if (Needs->isPointerNeeded(P) || Activity->isActive(P))
          DeferredFrees.insert(P);
  }
}

bool ReverseFunction::sweepCudaApi(const CallExpr *C, const Stmt *Original,
                                   BlockStmt *Fwd, BlockStmt *Rev) {
  const std::string &Name = C->getName();
  const Type *Err = C->getType();
  if (Name == "cudaFree" && C->getNumArgs() == 1) {
    const Var *P = ActivityAnalysis::getRootVar(C->getArg(0));
    if (!P || !DeferredFrees.count(P))
      Fwd->append(Original);
    return true;
  }
  if (Name == "cudaMalloc" && C->getNumArgs() == 2) {
    Fwd->append(Original);
    Var *P = const_cast<Var *>(ActivityAnalysis::getRootVar(C->getArg(0)));
    if (!P)
      return true;
    if (Activity->isActive(P)) {
      Var *A = adjointVar(P);
      const Expr *Addr = B.cast(C->getArg(0)->getType(), B.addrOf(B.ref(A)));
      Fwd->append(M.create<ExprStmt>(
          intrinsicCall(M, Err, "cudaMalloc", {Addr, C->getArg(1)})));
      Fwd->append(M.create<ExprStmt>(intrinsicCall(
          M, Err, "cudaMemset", {B.ref(A), B.intLit(0), C->getArg(1)})));
      Rev->append(M.create<ExprStmt>(
          intrinsicCall(M, Err, "cudaFree", {B.ref(A)})));
    }
    if (DeferredFrees.count(P))
      Rev->append(M.create<ExprStmt>(
          intrinsicCall(M, Err, "cudaFree", {B.ref(P)})));
    return true;
  }
  if (Name == "cudaMemcpy" && C->getNumArgs() == 4) {
    Fwd->append(Original);
    const Expr *Dst = stripCasts(C->getArg(0)), *Src = stripCasts(C->getArg(1));
    const Expr *DDst = adjointPointer(Dst);
    if (!DDst)
      return true;
    const Expr *DSrc = adjointPointer(Src);
    if (!DSrc)
      DSrc = M.create<IntLitExpr>(DDst->getType(), 0, "nullptr");
    Rev->append(M.create<ExprStmt>(
        intrinsicCall(M, Err, "meshad::cuda::adjointMemcpy",
                      {DDst, DSrc, C->getArg(2), C->getArg(3)})));
    return true;
  }
  if (Name == "cudaMemset" && C->getNumArgs() == 3) {
    Fwd->append(Original);
    if (const Expr *DP = adjointPointer(stripCasts(C->getArg(0))))
      Rev->append(M.create<ExprStmt>(intrinsicCall(
          M, Err, "cudaMemset", {DP, B.intLit(0), C->getArg(2)})));
    return true;
  }
  return false;
}

void ReverseFunction::prepareSnapshots() {
  if (Primal->isKernel())
    return;
  History = std::make_unique<DeviceBufferHistory>(*Primal, *Body, *Activity);
  if (!History->anyCandidate())
    return;
  Snapshots = M.createVar(Names.unique("_snapshots"),
                          M.getTypes().getOpaque("meshad::cuda::DeviceSnapshots"),
                          Var::Storage::Local, VarRoles::Temporary);
  Decls->append(B.decl(Snapshots, nullptr));
}

const Expr *ReverseFunction::snapshotCount(const LaunchStmt *L, unsigned I) {
  const Expr *Arg = L->getArgs()[I];
  const auto *Ref = dyn_cast<VarRefExpr>(Arg);
  const Type *Param = L->getKernel()->getParam(I)->getType();
  if (!Ref || !Arg->getType()->isPointer() ||
      spellType(Arg->getType()->getElement()->getUnqualified()) !=
          spellType(Param->getElement()->getUnqualified()))
    return nullptr;
  // The buffer passed twice: the other parameter's accesses count too.
  const Var *Buffer = Activity->aliasLeader(Ref->getVar());
  for (unsigned J = 0; J < L->getArgs().size(); ++J) {
    const Var *Other = ActivityAnalysis::getRootVar(L->getArgs()[J]);
    if (J != I && Other && Other->getType()->isPointer() &&
        Activity->aliasLeader(Other) == Buffer)
      return nullptr;
  }
  std::optional<LaunchRange> R = launchAccessRange(M, *L, I);
  if (!R || !isPureExpr(L->getArgs()[R->CountArg]))
    return nullptr;
  const Expr *N = L->getArgs()[R->CountArg];
  const Type *Ty = N->getType()->getUnqualified();
  return R->Extra < 0 ? B.sub(N, B.intLit(-R->Extra, Ty))
                      : B.add(N, B.intLit(R->Extra, Ty));
}

void ReverseFunction::remarkSnapshot(const LaunchStmt *L, const Var *Root,
                                     const Expr *Count,
                                     const ir::Function &Grad) {
  const std::string &K = L->getKernel()->getName();
  if (!Count) {
    Diags.remark(L->getLoc(),
                 "copies '" + Root->getName() + "' before this launch of '" +
                     K + "' and restores it before '" + Grad.getName() +
                     "': the gradient reads it as it was, and the launch or "
                     "a later operation overwrites it");
    return;
  }
  Diags.remark(L->getLoc(),
               "copies '" + Root->getName() + "[0:" + irwalk::spell(Count) +
                   "]', the elements this launch of '" + K +
                   "' accesses, before it and restores them before '" +
                   Grad.getName() + "': the gradient reads them as they "
                   "were, and the launch or a later operation overwrites "
                   "them");
}

bool ReverseFunction::snapshotLaunch(const LaunchStmt *L,
                                     const ir::Function &Grad,
                                     BlockStmt *Fwd, BlockStmt *Rev) {
  const ir::Function &K = *L->getKernel();
  // The buffers to copy, with the argument that passes each.
  std::vector<std::pair<const Var *, unsigned>> Saved;
  for (unsigned I = 0; I < L->getArgs().size() && I < K.getNumParams(); ++I) {
    const Var *Root = ActivityAnalysis::getRootVar(L->getArgs()[I]);
    if (!Root || !K.getParam(I)->getType()->isPointer())
      continue;
    if (WithValue && History->callerVisible(Root) &&
        DeviceBufferHistory::kernelMayWrite(Grad, I)) {
      error(L->getLoc(),
            "meshad::WithValue: the gradient kernel '" + Grad.getName() +
                "' writes '" + Root->getName() +
                "' again, memory the caller sees, so it would not keep the "
                "primal's result; request the gradient without "
                "meshad::WithValue and run the primal for the value");
      return false;
    }
    if (!DeviceBufferHistory::readsParam(Grad, I) ||
        !History->writtenFrom(L, Root) ||
        llvm::any_of(Saved, [&](auto S) { return S.first == Root; }))
      continue;
    if (WithValue && History->callerVisible(Root)) {
      error(L->getLoc(),
            "meshad::WithValue: the gradient of this launch of '" +
                K.getName() + "' reads '" + Root->getName() +
                "' as it was before the launch, so the reverse sweep puts "
                "back its earlier contents, memory the caller sees; request "
                "the gradient without meshad::WithValue, or let the kernel "
                "write a separate buffer");
      return false;
    }
    if (!Snapshots) { // DeviceBufferHistory found no candidate: a bug.
      error(L->getLoc(), "internal error: meshad found no buffer to copy "
                         "before this launch, but its gradient needs one");
      return false;
    }
    Saved.push_back({Root, I});
  }
  const Type *Void = M.getTypes().getVoid();
  for (auto [Root, I] : Saved) {
    Var *Buffer = const_cast<Var *>(Root);
    std::vector<const Expr *> Args = {B.ref(Snapshots), B.ref(Buffer)};
    // Only the elements the launch accesses, where the analysis bounds them.
    if (const Expr *Count = snapshotCount(L, I))
      Args.push_back(Count);
    remarkSnapshot(L, Root, Args.size() > 2 ? Args[2] : nullptr, Grad);
    Fwd->append(M.create<ExprStmt>(
        intrinsicCall(M, Void, "meshad::cuda::snapshotPush", Args)));
  }
  for (auto [Root, I] : llvm::reverse(Saved))
    Rev->append(M.create<ExprStmt>(
        intrinsicCall(M, Void, "meshad::cuda::snapshotPop",
                      {B.ref(Snapshots), B.ref(const_cast<Var *>(Root))})));
  return true;
}

bool ReverseFunction::shadowAliasedAdjoints(
    const LaunchStmt *L, const std::vector<bool> &Active,
    std::vector<const Expr *> &Args, BlockStmt *Rev, BlockStmt *After) {
  const ir::Function &K = *L->getKernel();
  unsigned NumPrimal = L->getArgs().size();
  // Adjoint argument position of each active buffer argument, by buffer.
  llvm::DenseMap<const Var *, std::vector<std::pair<unsigned, unsigned>>>
      ByBuffer;
  std::vector<const Var *> Order;
  for (unsigned I = 0, D = NumPrimal; I < NumPrimal; ++I) {
    if (!Active[I])
      continue;
    unsigned Pos = D++;
    if (!L->getArgs()[I]->getType()->isIndexable())
      continue;
    const Var *Root = ActivityAnalysis::getRootVar(L->getArgs()[I]);
    if (!Root)
      continue;
    const Var *Buffer = Activity->aliasLeader(Root);
    if (!ByBuffer.count(Buffer))
      Order.push_back(Buffer);
    ByBuffer[Buffer].push_back({I, Pos});
  }
  for (const Var *Buffer : Order) {
    auto &Uses = ByBuffer[Buffer];
    if (Uses.size() < 2)
      continue;
    unsigned Written = llvm::count_if(Uses, [&](auto U) {
      return DeviceBufferHistory::kernelMayWrite(K, U.first);
    });
    if (Written > 1) {
      error(L->getLoc(), "this launch of '" + K.getName() +
                             "' passes buffers that may be the same memory "
                             "('" + Buffer->getName() +
                             "') to two parameters it writes; pass separate "
                             "buffers");
      return false;
    }
    bool KeepOne = Written == 0; // the first read-only use keeps its own
    for (auto [I, Pos] : Uses) {
      if (Written ? DeviceBufferHistory::kernelMayWrite(K, I) : KeepOne) {
        KeepOne = false;
        continue;
      }
      shadowAdjointArg(L, I, Buffer, Args[Pos], Rev, After);
    }
  }
  return true;
}

void ReverseFunction::shadowAdjointArg(const LaunchStmt *L, unsigned I,
                                       const Var *Buffer, const Expr *&DP,
                                       BlockStmt *Rev, BlockStmt *After) {
  const Expr *Adjoint = DP;
  Var *S = M.createVar(freshName("_shadow"), Adjoint->getType(),
                       Var::Storage::Local, VarRoles::Temporary);
  Rev->append(B.decl(S, intrinsicCall(M, Adjoint->getType(),
                                      "meshad::cuda::shadowAdjoint",
                                      {Adjoint})));
  After->append(M.create<ExprStmt>(
      intrinsicCall(M, M.getTypes().getVoid(), "meshad::cuda::foldShadow",
                    {Adjoint, B.ref(S)})));
  DP = B.ref(S);
  Diags.remark(L->getLoc(),
               "the adjoint of argument " + std::to_string(I + 1) +
                   " of this launch of '" + L->getKernel()->getName() +
                   "' goes through a separate buffer: it may be the "
                   "same memory as another argument ('" +
                   Buffer->getName() + "')");
}

std::vector<bool> ReverseFunction::activeLaunchArgs(const LaunchStmt *L) {
  const ir::Function *Kernel = L->getKernel();
  std::vector<bool> Active;
  for (unsigned I = 0; I < L->getArgs().size(); ++I)
    Active.push_back(I < Kernel->getNumParams() &&
                     Kernel->getParam(I)->getType()->isDifferentiable() &&
                     isActive(L->getArgs()[I]));
  return Active;
}

void ReverseFunction::appendLaunchAdjoints(const LaunchStmt *L,
                                           const std::vector<bool> &Active,
                                           std::vector<const Expr *> &Args,
                                           DeviceScalarAdjoints &Scalars,
                                           BlockStmt *Rev) {
  for (unsigned I = 0; I < L->getArgs().size(); ++I) {
    if (!Active[I])
      continue;
    const Expr *Arg = L->getArgs()[I];
    if (Arg->getType()->isIndexable()) {
      Args.push_back(adjointPointer(Arg));
      continue;
    }
    // A scalar argument's adjoint is summed on the device, then read back.
    const Type *Ty = Arg->getType()->getUnqualified();
    const Type *PtrTy = M.getTypes().getPointer(Ty);
    Var *D = M.createVar(freshName("_r"), PtrTy, Var::Storage::Local,
                         VarRoles::Temporary);
    Rev->append(B.decl(D, intrinsicCall(M, PtrTy,
                                        "meshad::cuda::deviceScalar<" +
                                            spellType(Ty) + ">",
                                        {})));
    Args.push_back(B.ref(D));
    Scalars.push_back({Arg, D});
  }
}

LaunchStmt *
ReverseFunction::gradientLaunch(const LaunchStmt *L, ir::Function *Grad,
                                const std::vector<const Expr *> &Args) {
  // The derivative of dynamic shared memory takes room after the primal's.
  const Expr *Bytes = L->getSharedBytes();
  if (Bytes && usesSharedShadow(*Grad))
    Bytes = B.mul(B.intLit(SharedShadowFactor), Bytes);
  auto *Launch = M.create<LaunchStmt>(Grad, L->getGrid(), L->getBlock(),
                                      Bytes, L->getStream(), Args,
                                      L->isViaMacro());
  Launch->setLoc(L->getLoc());
  return Launch;
}

void ReverseFunction::addDeviceScalarAdjoints(
    const DeviceScalarAdjoints &Scalars, BlockStmt *Rev) {
  for (auto &[Arg, D] : Scalars)
    adjoint(Arg,
            intrinsicCall(M, Arg->getType()->getUnqualified(),
                          "meshad::cuda::takeScalar", {B.ref(D)}),
            Rev);
}

void ReverseFunction::sweepLaunch(const LaunchStmt *L, BlockStmt *Fwd,
                                  BlockStmt *Rev) {
  std::vector<bool> Active = activeLaunchArgs(L);
  if (!llvm::is_contained(Active, true)) {
    Fwd->append(L);
    return;
  }
  ir::Function *Kernel = L->getKernel();
  ir::Function *Grad = Owner.deriveGradient(
      Kernel, Active, derivedName(*Kernel, Active, "_grad"), L->getLoc());
  if (!Grad || !snapshotLaunch(L, *Grad, Fwd, Rev)) {
    Failed = true;
    return;
  }
  Fwd->append(L);
  Derived.addCall(Result, Grad);
  std::vector<const Expr *> Args(L->getArgs());
  DeviceScalarAdjoints Scalars;
  appendLaunchAdjoints(L, Active, Args, Scalars, Rev);
  BlockStmt *Folds = M.create<BlockStmt>();
  if (!shadowAliasedAdjoints(L, Active, Args, Rev, Folds)) {
    Failed = true;
    return;
  }
  Rev->append(gradientLaunch(L, Grad, Args));
  for (const Stmt *S : Folds->getBody())
    Rev->append(S);
  addDeviceScalarAdjoints(Scalars, Rev);
}
