//===- demos/parameterization/SymmetricDirichlet.h - The local energy -----===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The symmetric Dirichlet energy of one triangle of a parameterization,
/// shared by demos/parameterization and benchmarks/solve/param-bench.cu.
/// meshad generates its Hessian (`symmetricDirichlet_hessian_0`,
/// MESHAD_HESSIAN below) and, where the including file asks for it
/// (`meshad::gradient(symmetricDirichlet, "x")`), its gradient
/// (`symmetricDirichlet_grad_0`). The plugin writes generated code into the
/// main file only, after the line that includes this header: the solver
/// term that calls them (`SymmetricDirichlet`, Term.h's local energy) is
/// therefore written in the including file, below its #include lines (in
/// this header it would precede their definitions, and declaring them here
/// ahead would make the plugin pick other names, `_hessian_0_1`, so that
/// its names never collide with the user's).
///
/// \code
///   #include "SymmetricDirichlet.h"
///   struct SymmetricDirichlet {            // the term, in the .cu file
///     static constexpr int Arity = 3, Dofs = 2;
///     __device__ static void hessian(const double *x, const double *p,
///                                    double *H) {
///       symmetricDirichlet_hessian_0(x, p, H);
///     }
///     // energy, gradient (symmetricDirichlet_grad_0) alike
///   };
/// \endcode
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_DEMOS_PARAMETERIZATION_SYMMETRICDIRICHLET_H
#define MESHAD_DEMOS_PARAMETERIZATION_SYMMETRICDIRICHLET_H

#include <meshad/Differentiator.h>

/// x: the triangle's uv (a, b, c); p: Dm^-1 (row-major 2x2), rest area.
MESHAD_HESSIAN("x[0:6]")
__host__ __device__ double symmetricDirichlet(const double *x,
                                              const double *p) {
  double e1x = x[2] - x[0], e1y = x[3] - x[1];
  double e2x = x[4] - x[0], e2y = x[5] - x[1];
  double f00 = e1x * p[0] + e2x * p[2], f01 = e1x * p[1] + e2x * p[3];
  double f10 = e1y * p[0] + e2y * p[2], f11 = e1y * p[1] + e2y * p[3];
  double frob = f00 * f00 + f01 * f01 + f10 * f10 + f11 * f11;
  double det = f00 * f11 - f01 * f10;
  return p[4] * frob * (1 + 1 / (det * det));
}

#endif // MESHAD_DEMOS_PARAMETERIZATION_SYMMETRICDIRICHLET_H
