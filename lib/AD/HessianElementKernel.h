//===- AD/HessianElementKernel.h - Element kernels' Hessians ----*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// meshad::hessian(kernel, "x") for an element kernel (issue 12): one
/// thread per element t < n reads its vertices' DOFs through an element map
/// (x[s*idx[c*t + j] + k], Analysis/ElementMaps.h) and adds a local energy
/// into E with atomicAdd. From it:
///
///   1. <k>_element(params..., t, x) (AD/ElementFunctions.h, shared with
///      the gather by recomputation of element gradients);
///   2. its gradient <k>_element_grad and dense Hessian <k>_element_hessian
///      (HessianTransformer: structural zeros, symmetry, repeated entries);
///   3. <k>_hessian(params..., meshad::ElementAssembly<T> _assembly): the
///      kernel's own guard around, per element, the gather of the local
///      DOFs, the three calls and meshad::assembleElement, which adds the
///      energy, the gradient and the Hessian (plain stores into blocks with
///      one owner, atomicAdd elsewhere, or the deterministic slots; the PSD
///      projection as an option) through the slot map of
///      meshad/runtime/SparsePattern.h.
///
/// What the analysis cannot map is an error naming the access: no element
/// map, several index arrays, a grid-stride loop, stores other than the
/// energy's atomicAdd, barriers or shared memory.
///
/// \code
///   ElementHessianBuilder B(M, Diags, Hessian, Reverse, Derived);
///   if (ir::Function *K = B.derive(Kernel, XParam, Loc))
///     const ElementHessianInfo *Info = B.infoOf(K); // for the handle
/// \endcode
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_AD_HESSIANELEMENTKERNEL_H
#define MESHAD_AD_HESSIANELEMENTKERNEL_H

#include "AD/ElementFunctions.h"
#include "AD/Hessian.h"
#include "AD/Reverse/ReverseMode.h"

#include <map>

namespace meshad {

/// What the handle of a generated element Hessian kernel needs.
struct ElementHessianInfo {
  /// The index array and the selected array, parameters of the primal (and
  /// of the generated kernel, which starts with the primal's parameters).
  unsigned IndexParam = 0, XParam = 0;
  long long Arity = 0, Stride = 0;
  /// The element count n, over the primal's parameters.
  const ir::Expr *Count = nullptr;
};

class ElementHessianBuilder {
public:
  ElementHessianBuilder(ir::Module &M, DiagnosticSink &Diags,
                        HessianTransformer &Hessian,
                        ReverseModeTransformer &Reverse,
                        DerivedFunctionSet &Derived)
      : M(M), Diags(Diags), Hessian(Hessian), Derived(Derived),
        Extract(M, Reverse, Derived) {}

  /// The generated kernel <k>_hessian of the element kernel \p Kernel with
  /// the selected array parameter \p XParam, with a remark at \p Loc; null
  /// after reporting errors at \p Loc.
  ir::Function *derive(ir::Function *Kernel, unsigned XParam,
                       clang::SourceLocation Loc);
  /// The facts of a kernel derive() made, or null.
  const ElementHessianInfo *infoOf(const ir::Function *D) const {
    auto It = Infos.find(D);
    return It == Infos.end() ? nullptr : &It->second;
  }

private:
  ir::Module &M;
  DiagnosticSink &Diags;
  HessianTransformer &Hessian;
  DerivedFunctionSet &Derived;
  ElementExtractor Extract;
  std::map<const ir::Function *, ElementHessianInfo> Infos;
  std::map<std::pair<const ir::Function *, unsigned>, ir::Function *> Done;
};

} // namespace meshad

#endif // MESHAD_AD_HESSIANELEMENTKERNEL_H
