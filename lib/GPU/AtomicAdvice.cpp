//===- GPU/AtomicAdvice.cpp - How to make an atomic adjoint store go ------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//

#include "GPU/AtomicAdvice.h"

#include "llvm/ADT/StringRef.h"

using namespace meshad;

namespace {

/// What the analysis found about a gather, the cases of the table.
enum class Gather { None, NoMap, MapNoCount, Map };

struct Advice {
  Gather Case;
  /// The text; '%' stands for the array's name.
  const char *Text;
};

// clang-format off
const Advice Table[] = {
  {Gather::None,
   "if no two threads touch one element (elements in colour order, a "
   "permutation), declare '%' MESHAD_THREAD_EXCLUSIVE; an index c*gid + d "
   "(offsets spanning less than |c|) is proven exclusive"},
  {Gather::NoMap,
   "read '%' only as %[s*idx[c*t + j] + k] through a read-only index array, "
   "under a guard t < n, for the atomic-free two-phase strategy "
   "(meshad::ElementStrategy, docs/element-kernels.md); or process the "
   "elements in colour order and declare '%' MESHAD_THREAD_EXCLUSIVE"},
  {Gather::MapNoCount,
   "give the element count with a guard (if (t < n), if (t >= n) return; "
   "or a grid-stride loop t < n) for the atomic-free two-phase strategy "
   "(meshad::ElementStrategy); or process the elements in colour order and "
   "declare '%' MESHAD_THREAD_EXCLUSIVE"},
  {Gather::Map,
   "gather by recomputation or two-phase slots replace these atomics under "
   "meshad::ElementStrategy::Auto (the default), Gather or TwoPhase, not "
   "under Atomics (the remark 'gradient of "
   "...' at the request says which applies; docs/element-kernels.md); or "
   "process the elements in colour order and declare '%' "
   "MESHAD_THREAD_EXCLUSIVE"},
};
// clang-format on

Gather caseOf(const OwnershipResult &R) {
  if (!R.ThroughIndexArray)
    return Gather::None;
  if (!R.HasElementMap)
    return Gather::NoMap;
  return R.HasElementCount ? Gather::Map : Gather::MapNoCount;
}

} // namespace

std::string meshad::atomicAdvice(const OwnershipResult &R,
                                 const std::string &Name) {
  if (R.Class != OwnershipClass::Shared || R.Asserted)
    return "";
  Gather Case = caseOf(R);
  for (const Advice &A : Table) {
    if (A.Case != Case)
      continue;
    std::string Out;
    for (char C : llvm::StringRef(A.Text))
      Out += C == '%' ? Name : std::string(1, C);
    return Out;
  }
  return "";
}
