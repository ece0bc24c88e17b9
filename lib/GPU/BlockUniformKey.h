//===- GPU/BlockUniformKey.h - One key for a loop's uniform adds -*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// A lowering decision of GPU/BlockUniformReduce (issue 15): when every
/// uniform add of a reverse loop's iteration indexes its adjoint array as
/// `Scale * key + Offset` for one integer variable `key` (the splat's
/// Gaussian `id`: means[2 * id + 1], conics[3 * id], opacities[id]), the
/// in-step loop keeps that key in one 32-bit register instead of a 64-bit
/// address per add, and meshad::warpKeyedAdds checks one key per iteration
/// instead of each address (meshad/codegen/WarpStep.h).
///
/// The key must hold the same value at every add of one iteration of one
/// thread, which the register then records: it is assigned at most once in
/// the loop's body, outside nested loops, by a statement that every add
/// follows in its block (the register is set right after it: a lane that
/// adds has set it), or not at all (the register is set at the top of the
/// body); its address is never taken.
/// The run-time check of warpKeyedAdds then makes the sums right whatever
/// the uniformity proof says: lanes whose keys differ add their own values
/// at their own addresses.
///
/// \code
///   std::string Why;
///   if (std::optional<UniformKey> K = findUniformKey(Body, Adds, Taken, Why))
///     ... K->Key, K->After, K->Forms[i].Scale ...
///   else
///     remark(... "addresses checked per add: " + Why);
/// \endcode
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_GPU_BLOCKUNIFORMKEY_H
#define MESHAD_GPU_BLOCKUNIFORMKEY_H

#include "IR/IR.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <optional>
#include <string>
#include <vector>

namespace meshad {

/// An add's index as Scale * key + Offset (both fit an int).
struct KeyedForm {
  long long Scale = 0;
  long long Offset = 0;
};

/// The key of a loop's uniform adds.
struct UniformKey {
  const ir::Var *Key = nullptr;
  /// The statement of the body that assigns the key (the register is set
  /// after it, in its block), or null when the body never assigns it (the
  /// register is set first).
  const ir::Stmt *After = nullptr;
  /// Per add of the request, in order.
  std::vector<KeyedForm> Forms;
};

/// The key of \p Adds (Accumulates `A[index]`, all in \p Body, a loop's
/// body), or nullopt with \p Why set. \p AddressTaken says whether a
/// variable's address is taken in the kernel.
std::optional<UniformKey>
findUniformKey(const ir::BlockStmt *Body,
               llvm::ArrayRef<const ir::AssignStmt *> Adds,
               llvm::function_ref<bool(const ir::Var *)> AddressTaken,
               std::string &Why);

/// The block of \p Blk, or of the branches and blocks nested in it (not in
/// loops), whose own statements include \p S; null if none.
const ir::BlockStmt *blockHolding(const ir::BlockStmt *Blk, const ir::Stmt *S);

} // namespace meshad

#endif // MESHAD_GPU_BLOCKUNIFORMKEY_H
