//===- benchmarks/elements/Elements.h - The element benchmark's interface -===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// What kernels.cu (meshad), handwritten.cu and main.cu share: a problem (an
/// element kernel's data on the device) and the gradient variants, each
/// `void(const Problem &, const double *X, double *E, double *DX, double *DE)`
/// adding dE[0] * dE/dX to DX.
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_BENCH_ELEMENTS_ELEMENTS_H
#define MESHAD_BENCH_ELEMENTS_ELEMENTS_H

#include "Energies.h"

#include <string>

#if !defined(MESHAD_CPU_CUDA)
#include <cuda_runtime.h>
#endif
#include <meshad/cpu/Portable.h>

namespace elements {

constexpr int BlockSize = 256;
inline dim3 grid1D(long N) {
  return dim3(static_cast<unsigned>((N + BlockSize - 1) / BlockSize));
}

enum class EnergyKind { Spring, Dirichlet, NeoHookean };

/// An element kernel's data on the device.
struct Problem {
  EnergyKind Kind;
  int NumElements = 0;
  int Arity = 0;       ///< vertices per element: 2, 3, 4
  int NumVertices = 0;
  const int *Elements = nullptr; ///< Arity per element
  const double *Rest = nullptr;  ///< rest length / 2x2 / 3x3 inverse per element
  const double *Measure = nullptr; ///< area / volume per element (not springs)
  /// The incidence of Elements (meshad/runtime/Incidence.h) and a slot
  /// buffer (3 per slot), for the hand-written atomic-free gradients.
  const int *IncOffsets = nullptr;
  const int *IncSlots = nullptr;
  double *SlotBuf = nullptr;
};

using EnergyFn = void (*)(const Problem &, const double *X, double *E);
using GradientFn = void (*)(const Problem &, const double *X, double *E,
                            double *DX, double *DE);

// kernels.cu
void meshadMeshChanged();
void springEnergyLaunch(const Problem &, const double *, double *);
void dirichletEnergyLaunch(const Problem &, const double *, double *);
void neoHookeanEnergyLaunch(const Problem &, const double *, double *);
void springMeshadTwoPhase(const Problem &, const double *, double *, double *,
                          double *);
void springMeshadAtomics(const Problem &, const double *, double *, double *,
                         double *);
void dirichletMeshadTwoPhase(const Problem &, const double *, double *, double *,
                             double *);
void dirichletMeshadAtomics(const Problem &, const double *, double *, double *,
                            double *);
void neoHookeanMeshadTwoPhase(const Problem &, const double *, double *, double *,
                              double *);
void neoHookeanMeshadAtomics(const Problem &, const double *, double *, double *,
                             double *);
void springMeshadGather(const Problem &, const double *, double *, double *,
                        double *);
void dirichletMeshadGather(const Problem &, const double *, double *, double *,
                           double *);
void neoHookeanMeshadGather(const Problem &, const double *, double *, double *,
                            double *);
void springMeshadAuto(const Problem &, const double *, double *, double *,
                      double *);
void dirichletMeshadAuto(const Problem &, const double *, double *, double *,
                         double *);
void neoHookeanMeshadAuto(const Problem &, const double *, double *, double *,
                          double *);
/// The strategy of meshad's default gradient on the mesh it last ran.
std::string meshadAutoChoice(EnergyKind Kind);
/// ElementStrategy::Fastest (session 9): the springs' gather or atomics,
/// chosen at run time; the triangles' and tets' atomics (compile time).
void springMeshadFastest(const Problem &, const double *, double *, double *,
                         double *);
void dirichletMeshadFastest(const Problem &, const double *, double *,
                            double *, double *);
/// What the springs' Fastest gradient ran on the mesh it last saw.
std::string meshadFastestChoice();

// kernels.cu compiled again with -DELEMENTS_BASELINE and
// -fplugin-arg-meshad-element-baseline: two-phase slots zeroed and added to
// (no plain slot stores), gathers of the whole local gradient (no own-part
// pullbacks), to measure what those two save.
namespace baseline {
void meshadMeshChanged();
void springMeshadTwoPhase(const Problem &, const double *, double *, double *,
                          double *);
void dirichletMeshadTwoPhase(const Problem &, const double *, double *, double *,
                             double *);
void neoHookeanMeshadTwoPhase(const Problem &, const double *, double *, double *,
                              double *);
void springMeshadGather(const Problem &, const double *, double *, double *,
                        double *);
void dirichletMeshadGather(const Problem &, const double *, double *, double *,
                           double *);
void neoHookeanMeshadGather(const Problem &, const double *, double *, double *,
                            double *);
} // namespace baseline

// handwritten.cu: atomic scatter, gather by recomputation, two-phase slots.
void handScatter(const Problem &, const double *, double *, double *,
                 double *);
void handGather(const Problem &, const double *, double *, double *,
                double *);
void handTwoPhase(const Problem &, const double *, double *, double *,
                  double *);

/// The local gradient of element T (3 * Arity entries), on the host or the
/// device, from the element's data.
ELEM_HD inline void localGradient(EnergyKind Kind, const int *Elements,
                                  const double *Rest, const double *Measure,
                                  const double *X, int T, double *G) {
  switch (Kind) {
  case EnergyKind::Spring:
    springGradient(X + 3 * Elements[2 * T], X + 3 * Elements[2 * T + 1],
                   Rest[T], G);
    return;
  case EnergyKind::Dirichlet: {
    const int *C = Elements + 3 * T;
    dirichletGradient(X + 3 * C[0], X + 3 * C[1], X + 3 * C[2], Rest + 4 * T,
                      Measure[T], G);
    return;
  }
  case EnergyKind::NeoHookean: {
    const int *C = Elements + 4 * T;
    neoHookeanGradient(X + 3 * C[0], X + 3 * C[1], X + 3 * C[2],
                       X + 3 * C[3], Rest + 9 * T, Measure[T], G);
    return;
  }
  }
}

/// The energy of element T, on the host (the checks' finite differences).
inline double localEnergy(EnergyKind Kind, const int *Elements,
                          const double *Rest, const double *Measure,
                          const double *X, int T) {
  switch (Kind) {
  case EnergyKind::Spring:
    return springEnergy(X + 3 * Elements[2 * T], X + 3 * Elements[2 * T + 1],
                        Rest[T]);
  case EnergyKind::Dirichlet: {
    const int *C = Elements + 3 * T;
    return dirichletEnergy(X + 3 * C[0], X + 3 * C[1], X + 3 * C[2],
                           Rest + 4 * T, Measure[T]);
  }
  case EnergyKind::NeoHookean: {
    const int *C = Elements + 4 * T;
    return neoHookeanEnergy(X + 3 * C[0], X + 3 * C[1], X + 3 * C[2],
                            X + 3 * C[3], Rest + 9 * T, Measure[T]);
  }
  }
  return 0;
}

} // namespace elements

#endif // MESHAD_BENCH_ELEMENTS_ELEMENTS_H
