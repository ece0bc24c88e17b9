//===- GPU/ElementGather.h - Element gradients by recomputation -*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Gather by recomputation (issue 11, docs/element-kernels.md): the gradient
/// kernel of an element kernel becomes a kernel over the vertices (the DOF
/// owners). Vertex v loops over its incident (element, local vertex) pairs in
/// the fixed order of the incidence (CSR of the index array,
/// meshad/runtime/Incidence.h), gathers each element's DOFs, recomputes the
/// element's local gradient with <k>_element_grad (AD/ElementFunctions.h),
/// or only its own vertex's part with <k>_element_grad_<j>
/// (AD/ElementParts.h, chosen by if (_j == 0) ... else ...), and keeps its
/// own part; then it adds its sums to the adjoint once. Plain
/// stores, no atomics, bitwise reproducible:
///
/// \code
///   __global__ void springs_grad(int n, const int *edges, const double *x,
///                                double *E, double *_d_x, double *_d_E,
///                                const int *_offsets, const int *_incident,
///                                int _nv) {
///     int _v = blockIdx.x * blockDim.x + threadIdx.x;
///     if (_v < _nv) {
///       double _sum[3] = {};
///       for (int _i = _offsets[_v]; _i < _offsets[_v + 1]; ++_i) {
///         int e = _incident[_i] / 2;
///         double _xl[6];
///         meshad::gatherElement<2, 3>(x, edges, e, _xl);
///         double _gl[6] = {};
///         springs_element_grad(n, edges, e, _xl, _d_E[0], _gl);
///         meshad::keepVertexPart<2, 3>(_sum, _gl, _incident[_i] - 2 * e);
///       }
///       meshad::addVertexSum<3>(_d_x, _v, _sum);
///     }
///   }
/// \endcode
///
/// The helpers are those of meshad/codegen/ElementGather.h. It applies when
/// the gradient's only adjoints are the mapped arrays' and the energy's (the
/// seed _d_E[0]) and the gradient leaves no value. Several arrays read
/// through the same index array (positions x and weights w through edges)
/// share one kernel: _xl, _wl gathered, one call of the pullback
/// <k>_element_x_w_grad, _d_xl, _d_wl kept per array, one addVertexSum each.
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_GPU_ELEMENTGATHER_H
#define MESHAD_GPU_ELEMENTGATHER_H

#include "AD/ElementFunctions.h"

#include <string>
#include <vector>

namespace meshad {

/// The adjoint parameters of the gradient \p D of \p Primal that a gather
/// needs: those of \p E's DOF arrays (\p Adjoints, in E.Arrays' order) and
/// that of the energy (\p Seed); false with \p WhyNot when \p D has others.
bool gatherAdjoints(const ir::Function &Primal, const ir::Function &D,
                    const ElementFunctions &E, std::vector<unsigned> &Adjoints,
                    unsigned &Seed, std::string &WhyNot);

/// Replaces the body of the gradient kernel \p D of the element kernel
/// \p Primal by the gather over vertices and appends the incidence's
/// parameters; \p E holds the element's functions (with its pullback) and
/// DOF arrays, whose adjoints are \p D's parameters \p Adjoints (one fused
/// gather: each vertex gathers every array's element DOFs, calls the
/// pullback once per incident element and keeps its part of each local
/// gradient). Records the calls in \p Derived. Returns the position of the
/// first incidence parameter (offsets, incident slots, vertex count).
unsigned buildGatherKernel(ir::Module &M, DerivedFunctionSet &Derived,
                           const ir::Function &Primal, ir::Function &D,
                           const ElementFunctions &E,
                           const std::vector<unsigned> &Adjoints,
                           unsigned Seed);

} // namespace meshad

#endif // MESHAD_GPU_ELEMENTGATHER_H
