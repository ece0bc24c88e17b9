//===- AD/HessianSparseLoop.h - Sparse Hessians of loops --------*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// meshad::hessian(f, "x", meshad::Sparse) for a function whose loops sum
/// local terms over entries of x, with run-time trip counts:
///
///   double f(const double *x, int n) {
///     double loss = 0;
///     for (int i = 1; i < n; ++i)
///       loss += (x[i - 1] - x[i]) * (x[i - 1] - x[i]);
///     return loss;
///   }
///
/// The function may have several such loops (their patterns are united)
/// and return a sum or difference of accumulators. The analysis
/// (AD/HessianSparseLoopShape.h) gives each load of x as an affine form
/// over the counter and index array values (`2*i + 1`, `3*e[2*i] + k`),
/// each distinct form an entry. From them, per loop:
///   1. <f>_term(params..., invariant locals..., i, x): the loop body as a
///      function of the iteration's K entries (x[j] for entry j),
///      returning its signed terms;
///   2. its dense local Hessian <f>_term_hessian (HessianTransformer:
///      structural zeros, symmetry, repeats), whose pattern says which
///      pairs (j, l) interact in one iteration;
/// and <f>_hessian_sparse(params..., meshad::SparseMatrix<T> *H):
/// meshad::sparseLoopBegin, per loop and iteration the rows of its entries,
/// the gather, the local Hessian and meshad::sparseLoopAdd, then
/// meshad::sparseLoopEnd, which builds the pattern from the recorded rows
/// on the first call (and when they change) in O(nnz)
/// (meshad/codegen/SparseLoop.h).
///
/// What does not fit is an error at the construct: another index, an
/// accumulator updated other than by `+=`/`-=` of a term (a loop-carried
/// nonlinear dependence), another local carried across iterations, x read
/// outside the loops or other than by loads.
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
#include "AD/HessianSparseLoopBuilder.h"

#include <map>
#include <vector>

namespace meshad {


class SparseLoopHessianBuilder {
public:
  SparseLoopHessianBuilder(ir::Module &M, DiagnosticSink &Diags,
                           HessianTransformer &Hessian,
                           DerivedFunctionSet &Derived)
      : M(M), Diags(Diags), Hessian(Hessian), Derived(Derived) {}

  /// The generated \p Name(params..., meshad::SparseMatrix<T> *H) of \p F
  /// with the selected array parameters \p XParams (the matrix over their
  /// elements concatenated), with a remark at \p Loc; null after
  /// reporting errors. With \p Device (meshad::SparseDevice), \p
  /// Name(params..., meshad::DeviceSparseMatrix<T> *H), which launches a
  /// kernel per loop (AD/HessianSparseLoopDevice.cpp).
  ir::Function *derive(ir::Function *F, const std::vector<unsigned> &XParams,
                       const std::string &Name, clang::SourceLocation Loc,
                       bool Device = false);

private:
  /// False, with the construct \p At and the reason \p Why, when a loop of
  /// \p S cannot run as a kernel (a nest, bounds that read memory).
  static bool fitsDevice(const SparseLoopShape &S, clang::SourceLocation &At,
                         std::string &Why);
  /// The kernels of \p S's loops and the driver \p Name that launches them.
  ir::Function *buildDevice(ir::Function *F, const SparseLoopShape &S,
                            const std::vector<LoopTerm> &Terms,
                            const std::string &Name);
  /// Loop \p L's term and its local Hessian into \p Term; false after
  /// reporting errors.
  bool deriveTerm(ir::Function *F, const SparseLoopShape &S, unsigned L,
                  clang::SourceLocation Loc, LoopTerm &Term);

  ir::Module &M;
  DiagnosticSink &Diags;
  HessianTransformer &Hessian;
  DerivedFunctionSet &Derived;
  using Key = std::pair<const ir::Function *, std::vector<unsigned>>;
  std::map<Key, ir::Function *> Done, DoneDevice;
  std::map<Key, std::vector<LoopTerm>> TermsOf;
};

} // namespace meshad

#endif // MESHAD_AD_HESSIANSPARSELOOP_H
