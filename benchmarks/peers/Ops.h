//===- benchmarks/peers/Ops.h - meshad's operations for the peers ---------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// What ops.cu (compiled with the plugin) gives main.cu: per energy, the
/// derivatives meshad generates from the element kernel of
/// benchmarks/elements/kernels.cu (copied into namespace peers):
///
///   MeshadOps Ops = springOps();
///   Ops.Changed();                          // a new mesh: rebuild the maps
///   Ops.Gradient(P, X, E, DX, DE);          // DX += dE[0] dE/dX (two-phase)
///   Ops.Hessian(P, X, E, G);                // G += gradient, H = Hessian
///   Ops.Multiply(V, HV);                    // HV = H V (the last Hessian)
///   Ops.Hvp(P, X, E, V, HV, DE);            // HV += dE[0] H V, matrix-free
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_BENCH_PEERS_OPS_H
#define MESHAD_BENCH_PEERS_OPS_H

#include "Elements.h"

namespace peers {

using elements::Problem;

struct MeshadOps {
  /// The handles' cached connectivity (incidence, Hessian pattern) is stale.
  void (*Changed)();
  /// meshad::gradient(kernel, "x, E", KeepSeeds, TwoPhase / Atomics).
  elements::GradientFn Gradient, GradientAtomics;
  /// meshad::hessian(kernel, "x"): E += energy, G += gradient, the block
  /// CSR Hessian's values overwritten.
  void (*Hessian)(const Problem &, const double *X, double *E, double *G);
  /// H V of the last Hessian (ElementHessian::multiply).
  void (*Multiply)(const double *V, double *HV);
  /// Nonzero blocks of the last Hessian's matrix.
  long (*NumBlocks)();
  /// meshad::hvp(kernel, "x"): HV += dE[0] H V.
  void (*Hvp)(const Problem &, const double *X, double *E, const double *V,
              double *HV, double *DE);
};

MeshadOps springOps();
MeshadOps dirichletOps();
MeshadOps neoHookeanOps();

} // namespace peers

#endif // MESHAD_BENCH_PEERS_OPS_H
