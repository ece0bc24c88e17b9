//===- Analysis/ElementMaps.h - Element -> DOF maps of kernels --*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Mesh energies are written per element: a thread reads its element's
/// vertices through an index array and the vertices' values through them,
///
/// \code
///   int e = blockIdx.x * blockDim.x + threadIdx.x;
///   int a = edges[2 * e], b = edges[2 * e + 1];
///   for (int k = 0; k < 3; ++k) d[k] = x[3 * a + k] - x[3 * b + k];
/// \endcode
///
/// The ownership analysis calls such arrays shared (two elements may share
/// a vertex). This analysis recognises the element -> DOF map behind them,
/// which the atomic-free strategies of issue 11 invert (gather by
/// recomputation, two-phase slots): an array x has an element map when every
/// access is
///
///   x[s*v + k], v = idx[c*t + j]  (also through a local: int v = idx[...])
///
/// with s >= 1 a literal stride, k a literal or a loop counter with literal
/// bounds in [0, s), idx an integer array parameter that the kernel never
/// writes, c >= 1 a literal arity, j a literal or a loop counter with literal
/// bounds in [0, c), and t the same thread-exclusive element id in every
/// access: the 1D global thread id (a 1D launch) or a grid-stride loop
/// counter. Several index arrays may reach one array (one map each, one
/// stride), and several arrays may share one map. Sound first: any doubt is
/// "no element map", with the reason.
///
/// On a reverse sweep, lookupStores says the same of an adjoint array that
/// the kernel only adds to, and which statement adds to which slots.
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_ANALYSIS_ELEMENTMAPS_H
#define MESHAD_ANALYSIS_ELEMENTMAPS_H

#include "Analysis/ElementCount.h"
#include "Analysis/ElementWork.h"
#include "IR/IR.h"

#include "llvm/ADT/DenseMap.h"

#include <set>
#include <string>
#include <utility>
#include <vector>

namespace meshad {

/// One index array through which an array is read: x[s*idx[c*t + j] + k].
struct ElementMap {
  /// The index array parameter (idx).
  const ir::Var *IndexArray = nullptr;
  /// Its entries per element (c): element t's vertices are idx[c*t + j].
  long long Arity = 0;
  /// The (j, k) slots read: local vertex j of the element, component k of
  /// the vertex. A superset when a loop counter's range is over-estimated.
  std::set<std::pair<long long, long long>> Slots;
  /// The number of elements of this map (its accesses' guard; the array's
  /// Count when it is the array's only map).
  ElementCount Count;
};

/// One access through an element map and the slots it reads or adds to.
struct SlotAccess {
  /// The access as written (x[3 * a + k]) and the statement it is in.
  const ir::Expr *Access = nullptr;
  const ir::Stmt *Statement = nullptr;
  const ir::Var *IndexArray = nullptr;
  std::set<std::pair<long long, long long>> Slots;
};

/// The element map of one array parameter, or why it has none.
struct ElementMapResult {
  bool IsMap = false;
  /// When !IsMap, why not (for remarks); else empty.
  std::string Reason;
  /// The DOFs of vertex v are x[Stride*v + k], 0 <= k < Stride.
  long long Stride = 0;
  /// One map per index array, in the order the accesses meet them.
  std::vector<ElementMap> Maps;
  /// The element id as the kernel names it ("e", or a grid-stride counter).
  std::string ElementId;
  /// True when t is a grid-stride loop counter (a thread has many
  /// elements), false for the 1D global thread id (one element a thread).
  bool GridStride = false;
  /// The proof assumes a 1D launch (blockDim.y/z, gridDim.y/z are 1).
  unsigned LaunchDims = 0;
  /// Every access, in the kernel's order, with the slots it reaches.
  std::vector<SlotAccess> Accesses;
  /// The number of elements n (every access runs for t < n only), or why
  /// it is not known (ElementCount.h).
  ElementCount Count;

  /// "element map through edges (arity 2, stride 3)".
  std::string describe() const;
  /// Whether every map has an element count (Count, or each map's own:
  /// two element kinds under two guards).
  bool counted() const;
  /// "n elements (guard)", or per index array where only the maps have
  /// counts ("edges: ne elements (guard), tris: nf elements (guard)").
  std::string describeCount() const;
};

/// Finds the element maps of a kernel's array parameters.
///
/// \code
///   ElementMapAnalysis Maps(*Kernel);
///   const ElementMapResult &R = Maps.lookup(Kernel->getParam(0));
///   if (R.IsMap && Maps.getWork().isSmall()) ...
/// \endcode
class ElementMapAnalysis {
public:
  explicit ElementMapAnalysis(const ir::Function &Kernel);

  /// The result for the pointer parameter \p Param (no map for anything
  /// else).
  const ElementMapResult &lookup(const ir::Var *Param) const;
  /// For an array that the kernel only adds to (the adjoint array of a
  /// reverse sweep: every access an atomicAdd whose value is unused, +=,
  /// -= or Accumulate, each expression in one statement): its
  /// maps as for lookup, and in Accesses which statements add to which
  /// slots (j, k), what both atomic-free strategies route to the slots'
  /// owners. No map, with the reason, otherwise (also for arrays that the
  /// kernel does not write: see lookup).
  const ElementMapResult &lookupStores(const ir::Var *Param) const;
  /// The work of one element, for the cost model that chooses a strategy.
  const ElementWork &getWork() const { return Work; }
  /// The remark text: "x: element map through edges (arity 2, stride 3),
  /// element work small (12 operations, 1 math call): atomic-free
  /// strategies possible", or "x: no element map: <why>".
  std::string remark(const ir::Var *Param) const;

private:
  llvm::DenseMap<const ir::Var *, ElementMapResult> Results;
  llvm::DenseMap<const ir::Var *, ElementMapResult> StoreResults;
  ElementMapResult NotAParam;
  ElementWork Work;
};

} // namespace meshad

#endif // MESHAD_ANALYSIS_ELEMENTMAPS_H
