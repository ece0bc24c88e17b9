//===- AD/HessianSparseLoopDevice.cpp - Sparse loop Hessians on the GPU ---===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// meshad::hessian(f, "x", meshad::SparseDevice): per loop of f a kernel,
/// one thread per iteration,
///
///   __global__ void chain_hessian_sparse_kernel(const double *x, int n,
///       meshad::SparseLoopLaunch<double> launch) {
///     int i = launch.Lo + blockIdx.x * blockDim.x + threadIdx.x;
///     if (i >= launch.Hi) return;
///     int x_rows[2] = {i - 1, i};
///     if (meshad::sparseLoopRows<2>(launch, i, x_rows)) return;
///     double x_l[2] = {x[x_rows[0]], x[x_rows[1]]};
///     double hl[4];
///     chain_term_hessian(n, i, x_l, hl);
///     meshad::sparseLoopDeviceAdd<2, 15ull>(launch, i, hl);
///   }
///
/// and the driver <f>_hessian_sparse_device(params..., H), which launches
/// them in the passes meshad/runtime/SparseLoopDevice.h asks for (a rows
/// pass when the pattern is built, then the values pass).
///
//===----------------------------------------------------------------------===//

#include "AD/HessianSparseLoop.h"
#include "IR/Traversal.h"

using namespace meshad;
using namespace meshad::ir;
using namespace meshad::sparseloop;
using llvm::dyn_cast;

/// True when \p E loads memory (an index, a dereference) or calls a
/// function: a loop bound the host driver cannot compute.
static bool readsMemory(const Expr *E) {
  bool Found = false;
  forEachExpr(E, [&](const Expr *Sub) {
    const auto *U = dyn_cast<UnaryExpr>(Sub);
    Found |= llvm::isa<IndexExpr>(Sub) || llvm::isa<CallExpr>(Sub) ||
             (U && U->getOp() == UnaryOp::Deref);
  });
  return Found;
}

bool SparseLoopHessianBuilder::fitsDevice(const SparseLoopShape &S,
                                          clang::SourceLocation &At,
                                          std::string &Why) {
  for (const SparseLoop &L : S.Loops) {
    At = L.Loop->getLoc();
    if (L.Inner) {
      Why = "the nest over '" + L.Counter->getName() + "' and '" +
            L.InnerCounter->getName() +
            "' does not run as a kernel yet (one thread per iteration of a "
            "single loop); use meshad::Sparse on the host";
      return false;
    }
    std::vector<const Expr *> Bounds = {L.Lo, L.Hi};
    for (auto It = S.Decls.rbegin(); It != S.Decls.rend(); ++It)
      if (llvm::any_of(Bounds, [&](const Expr *E) {
            return refersTo(E, (*It)->getVar());
          }))
        Bounds.push_back((*It)->getInit());
    bool Reads = llvm::any_of(
        Bounds, [](const Expr *E) { return E && readsMemory(E); });
    if (Reads) {
      Why = "the bounds of the loop over '" + L.Counter->getName() +
            "' read memory or call a function; the host driver computes "
            "them before launching the kernel (pass them as parameters)";
      return false;
    }
  }
  At = clang::SourceLocation();
  return true;
}

Function *SparseFunctionBuilder::buildKernel(DerivedFunctionSet &Derived,
                                             const std::string &Name,
                                             unsigned L, const LoopTerm &Term) {
  TypeContext &Types = M.getTypes();
  const SparseLoop &Loop = S.Loops[L];
  Function *W = besidePrimal(M, Derived, F, Name, Types.getVoid(),
                             CudaTarget::Global);
  Var *Launch = M.createVar(
      Names.unique("launch"),
      Types.getOpaque("meshad::SparseLoopLaunch<" +
                      spellType(elementType(S)) + ">"),
      Var::Storage::Param);
  copyParams(W, Launch);
  BlockStmt *Body = B.block();
  for (const DeclStmt *D :
       neededDecls(/*Bounds=*/false, /*Terms=*/true, static_cast<int>(L))) {
    C.freshVar(D->getVar());
    Body->append(C.clone(D));
  }
  const Type *UInt = Types.getInt("unsigned int");
  auto Builtin = [&](BuiltinExpr::Builtin K) {
    return M.create<BuiltinExpr>(UInt, K, 0);
  };
  auto Member = [&](const char *Field) {
    return B.member(B.ref(Launch), Field, Types.getInt());
  };
  Var *I = C.freshVar(Loop.Counter);
  // launch.Lo + blockIdx.x * blockDim.x + threadIdx.x
  const Expr *First =
      B.add(B.add(Member("Lo"), B.mul(Builtin(BuiltinExpr::Builtin::BlockIdx),
                                      Builtin(BuiltinExpr::Builtin::BlockDim))),
            Builtin(BuiltinExpr::Builtin::ThreadIdx));
  Body->append(M.create<DeclStmt>(I, First));
  BlockStmt *Done = B.block();
  Done->append(M.create<ReturnStmt>(nullptr));
  Body->append(M.create<IfStmt>(
      B.binary(BinaryOp::Ge, B.ref(I), Member("Hi")), Done, nullptr));
  for (const Stmt *St : iteration(L, Term, /*IsAffine=*/false, Launch)
                            ->getBody())
    Body->append(St);
  W->setBody(Body);
  Derived.addCall(W, Term.LocalHessian);
  return W;
}

Function *SparseFunctionBuilder::buildDriver(
    DerivedFunctionSet &Derived, const std::string &Name,
    const std::vector<LoopTerm> &Terms, const std::vector<Function *> &Kernels) {
  TypeContext &Types = M.getTypes();
  const std::string T = spellType(elementType(S));
  Function *W = besidePrimal(M, Derived, F, Name, Types.getVoid(),
                             CudaTarget::HostOnly);
  H = M.createVar(Names.unique("H"),
                  Types.getPointer(Types.getOpaque(
                      "meshad::DeviceSparseMatrix<" + T + ">")),
                  Var::Storage::Param);
  copyParams(W, H);
  BlockStmt *Body = B.block();
  for (const DeclStmt *D : neededDecls(/*Bounds=*/true, /*Terms=*/false)) {
    C.freshVar(D->getVar());
    Body->append(C.clone(D));
  }
  Body->append(helperCall(M, "meshad::sparseDeviceBegin", {B.ref(H)}));
  const Type *LaunchTy =
      Types.getOpaque("meshad::SparseLoopLaunch<" + T + ">");
  BlockStmt *Pass = B.block();
  for (unsigned L = 0; L < S.Loops.size(); ++L) {
    const SparseLoop &Loop = S.Loops[L];
    Var *Launch = M.createVar(Names.unique("launch"), LaunchTy);
    std::vector<const Expr *> Args = {B.ref(H), C.clone(Loop.Lo),
                                      C.clone(Loop.Hi)};
    if (S.Arrays.size() > 1)
      Args.push_back(B.intLit(static_cast<long long>(S.Arrays.size())));
    Pass->append(M.create<DeclStmt>(
        Launch,
        M.create<CallExpr>(LaunchTy, CallExpr::CalleeKind::Intrinsic,
                           "meshad::sparseDeviceLoop" +
                               Terms[L].templateArgs(Loop.Entries.size()),
                           -1, std::move(Args))));
    std::vector<const Expr *> KernelArgs;
    for (Var *P : F->getParams())
      KernelArgs.push_back(B.ref(Params[P]));
    KernelArgs.push_back(B.ref(Launch));
    Pass->append(M.create<LaunchStmt>(
        Kernels[L], B.member(B.ref(Launch), "Blocks", Types.getInt()),
        B.member(B.ref(Launch), "Threads", Types.getInt()), nullptr, nullptr,
        std::move(KernelArgs), /*ViaMacro=*/true));
    Derived.addCall(W, Kernels[L]);
  }
  Body->append(M.create<DoStmt>(
      Pass, M.create<CallExpr>(Types.getBool(), CallExpr::CalleeKind::Intrinsic,
                               "meshad::sparseDeviceNext", -1,
                               std::vector<const Expr *>{B.ref(H)})));
  W->setBody(Body);
  return W;
}

ir::Function *SparseLoopHessianBuilder::buildDevice(
    Function *F, const SparseLoopShape &S, const std::vector<LoopTerm> &Terms,
    const std::string &Name) {
  // <f>_hessian_sparse_device_0 launches <f>_hessian_sparse_kernel_0,
  // <f>_hessian_sparse_kernel2_0, ...
  std::vector<Function *> Kernels;
  const size_t At = Name.rfind("_device");
  for (unsigned L = 0; L < S.Loops.size(); ++L) {
    std::string Kernel = Name;
    Kernel.replace(At, 7, "_kernel" + (L ? std::to_string(L + 1) : ""));
    Kernels.push_back(SparseFunctionBuilder(M, F, S).buildKernel(
        Derived, Kernel, L, Terms[L]));
  }
  return SparseFunctionBuilder(M, F, S).buildDriver(Derived, Name, Terms,
                                                    Kernels);
}
