//===- AD/HessianSparseLoopBuilder.h - Sparse loop Hessian code -*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The generated functions of a sparse loop Hessian (internal to
/// AD/HessianSparseLoop*.cpp): the host function of meshad::Sparse, and the
/// kernels and driver of meshad::SparseDevice.
///
/// \code
///   sparseloop::SparseFunctionBuilder B(M, F, Shape);
///   ir::Function *W = B.build(Derived, "f_hessian_sparse", Terms);
/// \endcode
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_AD_HESSIANSPARSELOOPBUILDER_H
#define MESHAD_AD_HESSIANSPARSELOOPBUILDER_H

#include "AD/HessianSparseLoopShape.h"
#include "AD/Hessian.h"
#include "IR/Builder.h"
#include "IR/Clone.h"
#include "IR/NameScope.h"

#include <string>
#include <vector>

namespace meshad {
/// One loop's term and local Hessian.
struct LoopTerm {
  ir::Function *LocalHessian = nullptr;
  std::vector<unsigned long long> Mask;
  const HessianPatternInfo *Pattern = nullptr;

  /// "<K, Mask_0ull, ...>", the template arguments of the helpers.
  std::string templateArgs(unsigned K) const {
    std::string Out = "<" + std::to_string(K);
    for (unsigned long long W : Mask)
      Out += ", " + std::to_string(W) + "ull";
    return Out + ">";
  }
  unsigned pairs() const {
    unsigned N = 0;
    for (unsigned long long W : Mask)
      N += static_cast<unsigned>(__builtin_popcountll(W));
    return N;
  }
};

namespace sparseloop {

using namespace ir;
using ownership::Affine;

/// A new function \p Name beside \p F, registered as derived from it.
Function *besidePrimal(Module &M, DerivedFunctionSet &Derived, Function *F,
                       const std::string &Name, const Type *Ret,
                       CudaTarget Target);
/// True when \p E names \p V.
bool refersTo(const Expr *E, const Var *V);
/// The element type of the selected arrays.
const Type *elementType(const SparseLoopShape &S);
/// `Name(Args)`, a helper of meshad/codegen/SparseLoop.h or
/// meshad/runtime/SparseLoopDevice.h.
const Stmt *helperCall(Module &M, const std::string &Name,
                       std::vector<const Expr *> Args);

/// Builds the functions of one sparse loop Hessian (one builder per
/// generated function: its names, its parameters): <f>_hessian_sparse (the
/// declarations the loops need, sparseLoopBegin, per loop and iteration
/// the rows, the gather, the local Hessian and sparseLoopAdd, then
/// sparseLoopEnd), or for meshad::SparseDevice a loop's kernel or the
/// driver that launches them (HessianSparseLoopDevice.cpp).
class SparseFunctionBuilder {
public:
  SparseFunctionBuilder(Module &M, Function *F, const SparseLoopShape &S)
      : M(M), B(M), C(M), F(F), S(S) {
    Names.addFunction(*F);
    SkipRow = M.createVar("meshad::SkipRow", M.getTypes().getConst(
                                                 M.getTypes().getInt()),
                          Var::Storage::Global);
  }
  Function *build(DerivedFunctionSet &Derived, const std::string &Name,
                  const std::vector<LoopTerm> &Terms);
  /// `__global__ Name(params..., meshad::SparseLoopLaunch<T> launch)`: one
  /// thread per iteration of loop \p L, its rows (the rows pass) or its
  /// local Hessian added through the slots (the values pass).
  Function *buildKernel(DerivedFunctionSet &Derived, const std::string &Name,
                        unsigned L, const LoopTerm &Term);
  /// `Name(params..., meshad::DeviceSparseMatrix<T> *H)`: the passes of
  /// the kernels \p Kernels, one per loop.
  Function *buildDriver(DerivedFunctionSet &Derived, const std::string &Name,
                        const std::vector<LoopTerm> &Terms,
                        const std::vector<Function *> &Kernels);

private:
  /// The declarations outside the loops that their bounds (with \p Bounds)
  /// and the terms (with \p Terms) read; of loop \p Only alone when it is
  /// not -1.
  std::vector<const DeclStmt *> neededDecls(bool Bounds = true,
                                            bool Terms = true,
                                            int Only = -1) const;
  /// f's parameters as \p Fn's (copies, into Params), then \p Extra.
  void copyParams(Function *Fn, Var *Extra);
  /// The arguments of loop \p L's local Hessian, its gathers into \p Out.
  std::vector<const Expr *> termArgs(BlockStmt *Out, unsigned L, Var *Rows,
                                     bool IsAffine);
  /// The index \p Form of an entry of loop \p L as an expression.
  const Expr *row(const Affine &Form, unsigned L);
  /// The rows of loop \p L's entries (SkipRow where a guard fails).
  void declareRows(BlockStmt *Out, unsigned L, Var *Rows);
  /// The local copy of array \p A's entries of loop \p L.
  Var *gather(BlockStmt *Out, unsigned L, unsigned A, Var *Rows,
              bool IsAffine);
  /// One iteration of loop \p L: on the host, or in its kernel (\p Launch).
  BlockStmt *iteration(unsigned L, const LoopTerm &Term, bool IsAffine,
                       Var *Launch = nullptr);
  /// Loop \p L (with its inner loop) around its iteration.
  const ForStmt *loopNest(unsigned L, const LoopTerm &Term, bool IsAffine);

  Module &M;
  IRBuilder B;
  IRCloner C;
  Function *F;
  const SparseLoopShape &S;
  NameScope Names;
  llvm::DenseMap<const Var *, Var *> Params;
  Var *H = nullptr;
  Var *SkipRow = nullptr;
};

} // namespace sparseloop
} // namespace meshad

#endif // MESHAD_AD_HESSIANSPARSELOOPBUILDER_H
