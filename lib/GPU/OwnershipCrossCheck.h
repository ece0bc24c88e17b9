//===- GPU/OwnershipCrossCheck.h - Ownership both ways ----------*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// A development check of issue 10, item 2 (-fplugin-arg-meshad-ownership-
/// crosscheck): the ownership of each kernel adjoint array of a function
/// reverse mode built, classified both ways, on the primal kernel's
/// accesses to the parameter and on the finished, unlowered function's
/// accesses to its adjoint (its Accumulates, as lowerAccumulations does for
/// composed derivatives). Each difference of class, launch shape, tile
/// window, uniform element, gather facts or reason is a warning at the
/// array's first Accumulate. It changes nothing in the generated code.
///
/// \code
///   if (Facts.OwnershipCrossCheck)
///     crossCheckOwnership(F, Facts, Diags);   // before planKernelAdjoints
/// \endcode
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_GPU_OWNERSHIPCROSSCHECK_H
#define MESHAD_GPU_OWNERSHIPCROSSCHECK_H

#include "GPU/LowerAccumulations.h"

#include <string>

namespace meshad {

/// The differences between \p Primal (the class of the primal's parameter
/// \p PrimalName) and \p Finished (that of its adjoint \p AdjointName in
/// the finished function), one "what: primal ..., finished ..." each,
/// separated by "; "; empty when they agree. The finished reason is
/// compared with the adjoint's name spelled as the primal's.
std::string ownershipDifferences(const OwnershipResult &Primal,
                                 const OwnershipResult &Finished,
                                 const std::string &PrimalName,
                                 const std::string &AdjointName);

/// Classifies the kernel adjoint arrays of \p F (Facts.KernelArrays) both
/// ways and warns at each difference.
void crossCheckOwnership(const ir::Function &F, const AccumulationFacts &Facts,
                         DiagnosticSink &Diags);

} // namespace meshad

#endif // MESHAD_GPU_OWNERSHIPCROSSCHECK_H
