//===- AD/HessianSparseLoop.h - Sparse Hessians of loops --------*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// meshad::hessian(f, "x", meshad::Sparse) for a function whose loop sums
/// local terms over affine-indexed entries of x, with a run-time trip count:
///
///   double f(const double *x, int n) {
///     double loss = 0;
///     for (int i = 1; i < n; ++i)
///       loss += (x[i - 1] - x[i]) * (x[i - 1] - x[i]);
///     return loss;
///   }
///
/// The index forms (Analysis/IndexForms.h) give each load of x as S*i + c
/// (one literal stride S, K distinct offsets c). From them:
///   1. <f>_term(params..., i, x): the loop body as a function of the
///      iteration's K entries (x[j] for offset c_j), returning its term;
///   2. its dense local Hessian <f>_term_hessian (HessianTransformer:
///      structural zeros, symmetry, repeats), whose pattern says which
///      pairs (c_j, c_l) interact in one iteration;
///   3. <f>_hessian_sparse(params..., meshad::SparseMatrix<T> *H): the
///      loop's bounds, meshad::sparseLoopBegin (the CSR pattern merged
///      over the iterations and the slots, built from S, the offsets and
///      the pairs, kept while the bounds stay), then per iteration the
///      gather, the local Hessian and meshad::sparseLoopAdd into its
///      slots (meshad/codegen/SparseLoop.h). O(n) time and memory.
///
/// What does not fit is an error at the construct: a non-affine index, an
/// accumulator updated other than by `+=`/`-=` of a term (a loop-carried
/// nonlinear dependence), another local carried across iterations, x read
/// outside the loop or other than by loads.
///
/// \code
///   SparseLoopHessianBuilder B(M, Diags, Hessian, Derived);
///   ir::Function *D = B.derive(F, XParam, "f_hessian_sparse", Loc);
/// \endcode
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_AD_HESSIANSPARSELOOP_H
#define MESHAD_AD_HESSIANSPARSELOOP_H

#include "AD/Hessian.h"

#include <map>

namespace meshad {

class SparseLoopHessianBuilder {
public:
  SparseLoopHessianBuilder(ir::Module &M, DiagnosticSink &Diags,
                           HessianTransformer &Hessian,
                           DerivedFunctionSet &Derived)
      : M(M), Diags(Diags), Hessian(Hessian), Derived(Derived) {}

  /// The generated \p Name(params..., meshad::SparseMatrix<T> *H) of \p F
  /// with the selected array parameter \p XParam, with a remark at \p Loc;
  /// null after reporting errors.
  ir::Function *derive(ir::Function *F, unsigned XParam,
                       const std::string &Name, clang::SourceLocation Loc);

private:
  ir::Module &M;
  DiagnosticSink &Diags;
  HessianTransformer &Hessian;
  DerivedFunctionSet &Derived;
  std::map<std::pair<const ir::Function *, unsigned>, ir::Function *> Done;
};

} // namespace meshad

#endif // MESHAD_AD_HESSIANSPARSELOOP_H
