//===- AD/Forward/ForwardCudaRuntime.cpp - Device buffers in host code ----===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Forward mode of the CUDA runtime calls that manage device buffers in host
/// code (and of meshad::cuda::adjointMemcpy, which a gradient calls for
/// them): a buffer that carries a derivative gets a tangent buffer beside
/// it, allocated, copied and freed alike; a memset stores constants (the
/// tangent is zeroed). What makes Hessian-vector products of host code
/// that allocates device buffers (the Thrust calls' gradients) possible.
///
//===----------------------------------------------------------------------===//

#include "AD/Forward/ForwardFunction.h"

#include "llvm/ADT/STLExtras.h"

using namespace meshad;
using namespace meshad::ir;
using llvm::dyn_cast;

namespace {

/// How a call's tangent is made: the same call on the tangents of its
/// pointer arguments (the others as they are), or a memset of the first
/// argument's tangent to zero.
enum class CudaTangent { Same, Zero };

struct CudaTangentRule {
  const char *Name;
  CudaTangent Form;
};

const CudaTangentRule CudaTangentRules[] = {
    {"cudaMalloc", CudaTangent::Same},
    {"cudaFree", CudaTangent::Same},
    {"cudaMemcpy", CudaTangent::Same},
    {"cudaMemset", CudaTangent::Zero},
    // DSrc += DDst; DDst = 0: linear in both (DSrc may be null).
    {"meshad::cuda::adjointMemcpy", CudaTangent::Same},
};

const CudaTangentRule *lookupCudaTangent(const CallExpr *C) {
  if (C->getCalleeKind() != CallExpr::CalleeKind::Intrinsic)
    return nullptr;
  for (const CudaTangentRule &R : CudaTangentRules)
    if (C->getName() == R.Name)
      return &R;
  return nullptr;
}

/// True when cudaMemcpy's kind \p Kind (its spelling) writes device memory.
bool copiesToDevice(const Expr *Kind) {
  const auto *L = dyn_cast<IntLitExpr>(Kind);
  llvm::StringRef S = L ? llvm::StringRef(L->getSpelling()) : "";
  return S.ends_with("HostToDevice") || S.ends_with("DeviceToDevice");
}

} // namespace

bool ForwardFunction::deriveCudaRuntimeStmt(const ExprStmt *S,
                                            const CallExpr *C,
                                            BlockStmt *Out) {
  const CudaTangentRule *R = lookupCudaTangent(C);
  if (!R)
    return false;
  Out->append(S);
  const Expr *Dst = derive(C->getArg(0), Out).T;
  if (!Dst)
    return true; // The buffer written carries no derivative.
  std::vector<const Expr *> Args{Dst};
  bool MissingSource = false;
  for (unsigned I = 1; I < C->getNumArgs(); ++I) {
    const Expr *A = C->getArg(I);
    const Expr *T = A->getType()->isPointer() ? derive(A, Out).T : nullptr;
    MissingSource |= A->getType()->isPointer() && !T;
    Args.push_back(T ? T : A->getType()->isPointer()
                               ? M.create<IntLitExpr>(A->getType(), 0, "nullptr")
                               : A);
  }
  const char *Name = R->Name;
  if (R->Form == CudaTangent::Zero) {
    Args[1] = B.intLit(0);
  } else if (MissingSource && C->getName() == "cudaMemcpy") {
    // Values without derivative copied into a buffer with one.
    if (!copiesToDevice(C->getArg(3))) {
      error(C->getLoc(), "forward mode of cudaMemcpy of values without "
                         "derivative into host memory with one is not "
                         "supported yet");
      return true;
    }
    Name = "cudaMemset";
    Args = {Dst, B.intLit(0), C->getArg(2)};
  }
  auto *Call = M.create<CallExpr>(C->getType(), CallExpr::CalleeKind::Intrinsic,
                                  Name, -1, std::move(Args));
  Call->setLoc(C->getLoc());
  auto *TS = M.create<ExprStmt>(Call);
  TS->setLoc(S->getLoc());
  Out->append(TS);
  return true;
}
