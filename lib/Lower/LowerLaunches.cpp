//===- Lower/LowerLaunches.cpp - Kernel launches to IR --------------------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Kernel launches: `k<<<g, b, bytes, stream>>>(args)` and the CPU
/// emulation's launcher object (MESHAD_LAUNCH), their configuration
/// (`dim3(n)` spelled `n`) and the launched kernel, lowered on demand.
///
//===----------------------------------------------------------------------===//

#include "Lower/LoweringImpl.h"

#include "clang/AST/DeclCXX.h"

using namespace meshad;
using namespace clang;

const ir::Expr *ExprLowering::lowerLaunchConfig(const Expr *E) {
  if (!E || isa<CXXDefaultArgExpr>(E))
    return nullptr;
  const Expr *Inner = skipWrappers(E)->IgnoreImplicit();
  if (const auto *Cast = dyn_cast<CXXFunctionalCastExpr>(Inner))
    return lowerLaunchConfig(Cast->getSubExpr());
  if (const auto *Ctor = dyn_cast<CXXConstructExpr>(Inner)) {
    // dim3(n) with defaulted y and z is spelled n; copies are looked through.
    unsigned Given = 0;
    for (const Expr *A : Ctor->arguments())
      Given += !isa<CXXDefaultArgExpr>(A);
    if (Given == 1)
      return lowerLaunchConfig(Ctor->getArg(0));
  }
  return lower(Inner);
}

ir::Function *ExprLowering::lowerLaunchedKernel(const FunctionDecl *FD,
                                                SourceLocation Loc) {
  if (!FD || !isUserFunction(FD)) {
    S.fail(Loc, "meshad: a launch of a kernel whose definition is not "
                "visible is not supported");
    return nullptr;
  }
  return LowerCallee(FD);
}

const ir::Stmt *ExprLowering::lowerLaunch(const CUDAKernelCallExpr *E) {
  SourceLocation Loc = E->getExprLoc();
  ir::Function *Kernel = lowerLaunchedKernel(E->getDirectCallee(), Loc);
  if (!Kernel)
    return nullptr;
  const CallExpr *Config = E->getConfig();
  auto ConfigArg = [&](unsigned I) -> const ir::Expr * {
    return Config && I < Config->getNumArgs()
               ? lowerLaunchConfig(Config->getArg(I))
               : nullptr;
  };
  const ir::Expr *Grid = ConfigArg(0), *Block = ConfigArg(1);
  if (!Grid || !Block) {
    S.fail(Loc, "meshad: this launch configuration is not supported");
    return nullptr;
  }
  std::vector<const ir::Expr *> Args;
  if (!lowerArgs(E, Args))
    return nullptr;
  auto *L = S.M.create<ir::LaunchStmt>(Kernel, Grid, Block, ConfigArg(2),
                                       ConfigArg(3), std::move(Args));
  L->setLoc(Loc);
  return L;
}

const ir::Stmt *
ExprLowering::lowerEmulatedLaunch(const CXXOperatorCallExpr *E,
                                  bool &IsLaunch) {
  IsLaunch = false;
  if (E->getOperator() != OO_Call || E->getNumArgs() < 1)
    return nullptr;
  const Expr *Obj = E->getArg(0)->IgnoreImplicit()->IgnoreParens();
  if (const auto *Cast = dyn_cast<CXXFunctionalCastExpr>(Obj))
    Obj = Cast->getSubExpr()->IgnoreImplicit();
  const auto *Ctor = dyn_cast<CXXConstructExpr>(Obj);
  const CXXRecordDecl *RD =
      Ctor ? Ctor->getType()->getAsCXXRecordDecl() : nullptr;
  if (!RD || RD->getQualifiedNameAsString() != "meshad::cpu::Launcher" ||
      Ctor->getNumArgs() < 4)
    return nullptr;
  IsLaunch = true;
  SourceLocation Loc = E->getExprLoc();
  const auto *Ref =
      dyn_cast<DeclRefExpr>(skipWrappers(Ctor->getArg(1))->IgnoreImpCasts());
  const auto *FD = Ref ? dyn_cast<FunctionDecl>(Ref->getDecl()) : nullptr;
  ir::Function *Kernel = lowerLaunchedKernel(FD, Loc);
  if (!Kernel)
    return nullptr;
  auto ConfigArg = [&](unsigned I) -> const ir::Expr * {
    return I < Ctor->getNumArgs() ? lowerLaunchConfig(Ctor->getArg(I))
                                  : nullptr;
  };
  const ir::Expr *Grid = ConfigArg(2), *Block = ConfigArg(3);
  if (!Grid || !Block) {
    S.fail(Loc, "meshad: this launch configuration is not supported");
    return nullptr;
  }
  std::vector<const ir::Expr *> Args;
  for (unsigned I = 1; I < E->getNumArgs(); ++I) {
    const ir::Expr *A = lower(E->getArg(I));
    if (!A)
      return nullptr;
    Args.push_back(A);
  }
  auto *L = S.M.create<ir::LaunchStmt>(Kernel, Grid, Block, ConfigArg(4),
                                       ConfigArg(5), std::move(Args),
                                       /*ViaMacro=*/true);
  L->setLoc(Loc);
  return L;
}
