//===- AD/ElementFunctions.h - An element kernel's local functions -*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The element's energy of an element kernel (one thread per element t < n
/// reads its vertices' DOFs through an element map x[s*idx[c*t + j] + k],
/// Analysis/ElementMaps.h, and adds a local energy into E with atomicAdd),
/// extracted as functions of the element's c*s local DOFs:
///
///   - <k>_element(params..., t, x): a __device__ copy of the guarded body
///     (the loads read x[s*j + k], the atomicAdds add into a local E that it
///     returns);
///   - <k>_element_grad(params..., t, x, _d_y, _d_x): its pullback, with x
///     private to the thread (plain adds into the caller's local gradient).
///
/// Several arrays read through the same index array (positions and
/// per-vertex weights, the gather of several arrays) are all local:
/// <k>_element_x_w(params..., t, x, w) and its pullback
/// <k>_element_x_w_grad(..., t, x, w, _d_y, _d_x, _d_w).
///
/// Shared by the element Hessians (AD/HessianElementKernel.h, issue 12) and
/// the gather by recomputation of element gradients (GPU/ElementGather.h,
/// issue 11); a kernel's functions are made once per translation unit.
///
/// \code
///   ElementExtractor X(M, Reverse, Derived);
///   ElementFunctions E;
///   std::string Why;
///   if (X.extractEnergy(Kernel, XParam, E, Why) && X.derivePullback(E, Loc))
///     use(E.Energy, E.Gradient, E.map(), E.Shape);
/// \endcode
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_AD_ELEMENTFUNCTIONS_H
#define MESHAD_AD_ELEMENTFUNCTIONS_H

#include "AD/DerivedFunctions.h"
#include "AD/Reverse/ReverseMode.h"
#include "Analysis/ElementMaps.h"

namespace meshad {

/// The shape of an element kernel: the statements before its guard, the
/// guard, and the element's statements.
struct ElementKernelShape {
  std::vector<const ir::Stmt *> Pre;
  const ir::IfStmt *Guard = nullptr;
  bool EarlyReturn = false;
  /// A grid-stride loop over the elements instead of a guard.
  const ir::ForStmt *Loop = nullptr;
  std::vector<const ir::Stmt *> Body;
  ir::Var *Element = nullptr;
  /// The array the energy is added into.
  ir::Var *Energy = nullptr;
};

/// A DOF array of the element functions: its kernel parameter, the values
/// per vertex and their type.
struct ElementArray {
  unsigned Param = 0;
  long long Stride = 1;
  const ir::Type *Value = nullptr;
};

/// An element kernel's map, shape and local functions.
struct ElementFunctions {
  /// The map of the first DOF array (x).
  ElementMapResult Map;
  /// The DOF arrays, x first, in the order of the element functions' local
  /// arrays; all read through Map's index array.
  std::vector<ElementArray> Arrays;
  ElementKernelShape Shape;
  ir::Function *Energy = nullptr;   ///< <k>_element(params..., t, x)
  ir::Function *Gradient = nullptr; ///< <k>_element_grad(..., x, _d_y, _d_x)
  /// <k>_element_grad_<j>: local vertex j's part of the pullback only
  /// (AD/ElementParts.h); empty when the gather calls the whole pullback.
  std::vector<ir::Function *> Parts;
  const ir::Type *Value = nullptr;  ///< T, x's element type

  const ElementMap &map() const { return Map.Maps.front(); }
  /// The number of local DOFs, arity * stride.
  unsigned numLocal() const {
    return static_cast<unsigned>(map().Arity * Map.Stride);
  }
};

/// A new function \p Name of \p Target placed beside the kernel \p K (and
/// its derivatives where the kernel's are), registered in \p Derived.
ir::Function *besideKernel(ir::Module &M, DerivedFunctionSet &Derived,
                           ir::Function *K, const std::string &Name,
                           const ir::Type *Ret, ir::CudaTarget Target);

class ElementExtractor {
public:
  ElementExtractor(ir::Module &M, ReverseModeTransformer &Reverse,
                   DerivedFunctionSet &Derived)
      : M(M), Reverse(Reverse), Derived(Derived) {}

  /// The map and shape of the kernel \p K whose array parameter \p XParam
  /// holds the DOFs (no function made); false with \p Why otherwise.
  bool analyze(const ir::Function &K, unsigned XParam, ElementFunctions &Out,
               std::string &Why) {
    return analyze(K, std::vector<unsigned>{XParam}, Out, Why);
  }
  /// The same for the DOF arrays \p XParams (x first), all read through one
  /// index array with one arity and element count.
  bool analyze(const ir::Function &K, const std::vector<unsigned> &XParams,
               ElementFunctions &Out, std::string &Why);
  /// The map, shape and <k>_element of the kernel \p K whose array
  /// parameter \p XParam holds the DOFs; false with \p Why (a sentence
  /// part: "'x' is read through 2 index arrays; ...") otherwise.
  bool extractEnergy(ir::Function *K, unsigned XParam, ElementFunctions &Out,
                     std::string &Why) {
    return extractEnergy(K, std::vector<unsigned>{XParam}, Out, Why);
  }
  /// The same with every array of \p XParams local (<k>_element_x_w when
  /// there are several).
  bool extractEnergy(ir::Function *K, const std::vector<unsigned> &XParams,
                     ElementFunctions &Out, std::string &Why);
  /// Sets Out.Gradient to <k>_element_grad; null after reverse mode
  /// reported errors at \p Loc.
  ir::Function *derivePullback(ElementFunctions &Out,
                               clang::SourceLocation Loc);

private:
  ir::Module &M;
  ReverseModeTransformer &Reverse;
  DerivedFunctionSet &Derived;
};

} // namespace meshad

#endif // MESHAD_AD_ELEMENTFUNCTIONS_H
