//===- Driver/HessianRequest.h - meshad::hessian requests -------*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// A meshad::hessian(f, "x[0:9], w") request to its layout: the selected
/// inputs, in spec order, each of a known size (a scalar, a range of an
/// array or pointer, a whole fixed-size array). Bad specs are errors at the
/// request: a pointer without a range, an integer parameter, a range
/// outside a fixed-size array, a parameter named twice.
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_DRIVER_HESSIANREQUEST_H
#define MESHAD_DRIVER_HESSIANREQUEST_H

#include "AD/Hessian.h"
#include "AD/HessianElementKernel.h"
#include "AD/HessianSparseLoop.h"
#include "Plan/Request.h"

#include <optional>

namespace meshad {

std::optional<HessianLayout> resolveHessian(const DerivativeRequest &R,
                                            const ir::Function &F,
                                            DiagnosticSink &Diags);

/// Resolves \p R and derives its Hessian (<f>_hessian[_<i>_<j>]); of a
/// kernel, the element Hessian kernel <k>_hessian of \p Elements; with
/// meshad::Sparse, the CSR Hessian of a loop <f>_hessian_sparse of \p Loops.
ir::Function *deriveHessianRequest(HessianTransformer &T,
                                   ElementHessianBuilder &Elements,
                                   SparseLoopHessianBuilder &Loops,
                                   const DerivativeRequest &R, ir::Function &F,
                                   DiagnosticSink &Diags);

} // namespace meshad

#endif // MESHAD_DRIVER_HESSIANREQUEST_H
