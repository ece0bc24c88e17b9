//===- Analysis/SweepDefs.h - Locals a reverse sweep reassigns --*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The index evaluator (IndexForms.h) gives a local a form when it is
/// defined once at the top of the kernel. A function that reverse mode
/// built (issue 10, item 2: ownership on the finished function) defines two
/// kinds of index locals otherwise, and SweepDefs finds them in the IR
/// alone, whatever modes built it:
/// - an index assigned after an early return: `if (!_cond0) { p = gy * W +
///   gx; }` then `if (!_cond0) { ... _d_x[p] ... }`. The value holds at
///   every read when the one assignment is a statement of an `if` branch at
///   the top of the kernel, outside loops, and every read is in a later
///   `if` of the kernel's body (or later in the same branch) on the same
///   branch of the same guard: a local assigned once, before those ifs,
///   address never taken (`_cond0`), tested the same way (`!` counted);
/// - a loop counter that the reverse sweep recomputes from the trip count:
///   `for (k = a; k < K; k += s) { ++_cnt0; ... }`, then `for (; _cnt0 > 0;
///   --_cnt0) { k = a + (_cnt0 - 1) * s; ... }`. The trip counter _cnt0
///   starts at 0 (its declaration, or `_cnt0 = 0;` just before a forward
///   loop that is in a loop), is incremented by one statement of the
///   forward loop's body, pushed onto a tape that holds only its values and
///   popped back (a loop in a loop), and decremented by the reverse loops
///   only, so in a reverse body 0 <= _cnt0 - 1 < the trip count of a run of
///   the forward loop: k takes only values it took in the forward loop
///   (whose start and step must then be literals when it is in a loop). The evaluator checks that each
///   recomputation is a + (_cnt0 - 1) * s in the same a and s (stable), and
///   gives k the counter's symbol and literal range; every read of k must
///   be in the forward loop or after the recomputation of a reverse loop.
///
/// \code
///   SweepDefs Sweeps(Kernel);
///   if (const ir::Expr *Value = Sweeps.guardedValue(P)) ...
///   if (const CountedLoop *L = Sweeps.countedLoop(K)) ...
/// \endcode
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_ANALYSIS_SWEEPDEFS_H
#define MESHAD_ANALYSIS_SWEEPDEFS_H

#include "IR/IR.h"

#include <map>
#include <optional>
#include <set>
#include <vector>

namespace meshad {
namespace ownership {

/// A counter `for (k = Init; cond; k += Step)` declared outside its loop
/// that reverse loops recompute from a trip counter.
struct CountedLoop {
  const ir::ForStmt *For = nullptr;
  ir::Var *Counter = nullptr;
  const ir::Expr *Init = nullptr;
  /// Null for ++k / --k.
  const ir::Expr *Step = nullptr;
  bool Decrement = false;
  /// The trip counter (_cnt0).
  const ir::Var *Trips = nullptr;
  /// The right-hand sides of the recomputations `k = ...`.
  std::vector<const ir::Expr *> Recomputed;
  /// True when the forward loop is in a loop: each run starts the trip
  /// counter at 0 and pushes it onto a tape that only holds its values,
  /// which the reverse sweep pops. The runs may then differ in their
  /// bounds: the evaluator asks for a literal Init and Step.
  bool InLoop = false;
};

/// Finds the guarded values and counted loops of one function.
class SweepDefs {
public:
  explicit SweepDefs(const ir::Function &F);

  /// The value \p V has at each of its reads, when it is assigned once
  /// under a guard that every read is under (above); else null.
  const ir::Expr *guardedValue(const ir::Var *V) const;
  /// The loop whose counter \p V is, with the reverse loops' recomputations
  /// (above, the forms still to check); else null.
  const CountedLoop *countedLoop(const ir::Var *V) const;
  /// True when \p V is the trip counter of a counted loop (_cnt0): a value
  /// that changes (not stable), popped from a tape in a loop in a loop.
  bool countsTrips(const ir::Var *V) const;

private:
  /// Where a statement is: its top-level statement, the top-level `if`
  /// branch it is in (at any depth) and its index there, its loops.
  struct Place {
    unsigned Top = 0;
    /// True for the top-level statements themselves.
    bool IsTop = false;
    const ir::IfStmt *TopIf = nullptr;
    bool Then = true;
    /// The index in that branch of the statement that holds it.
    unsigned InBranch = 0;
    /// True for the direct statements of that branch.
    bool Direct = false;
    std::vector<const ir::Stmt *> Loops;
  };
  /// A statement that defines or reads a local, and where it is.
  struct Site {
    const ir::Stmt *S;
    Place At;
  };
  void walkStmt(const ir::Stmt *S, const Place &At);
  void walkBranch(const ir::IfStmt *If, bool Then, const Place &At);
  void noteReads(const ir::Stmt *S, const Place &At);
  /// The guard \p Cond of a top-level `if` tests on the branch \p Then:
  /// the once-assigned local it tests and whether that holds; null Var
  /// when it tests anything else.
  std::pair<const ir::Var *, bool> guardOf(const ir::Expr *Cond,
                                           bool Then) const;
  /// True when \p V is assigned once, at the top of the kernel, before
  /// the top-level statement \p Top (its declaration's value included).
  bool isAssignedOnceBefore(const ir::Var *V, unsigned Top) const;
  bool isPlainLocal(const ir::Var *V) const;
  /// The trip counter of the reverse loop \p S (`for (; c > 0; --c)`).
  static const ir::Var *reverseCounter(const ir::Stmt *S);
  std::optional<CountedLoop> matchCounted(const ir::Var *V) const;
  /// Adds the definition \p D of a counted loop's counter to \p L.
  bool addCounterDef(const Site &D, CountedLoop &L,
                     std::vector<const ir::Stmt *> &Reverse) const;
  bool isTripCounter(const ir::Var *C, const ir::ForStmt *For) const;
  /// True when \p E is `meshad::pop(T)` of a tape T that only holds
  /// values of \p C (`meshad::push(T, C)`, `C = meshad::pop(T)`).
  bool isPopOfCounts(const ir::Expr *E, const ir::Var *C) const;
  /// True when \p Next follows \p S in one block.
  bool precedes(const ir::Stmt *S, const ir::Stmt *Next) const;
  /// True when every read of the counter of \p L is in its loop or after
  /// the recomputation of one of the \p Reverse loops.
  bool readsInLoops(const CountedLoop &L,
                    const std::vector<const ir::Stmt *> &Reverse) const;

  std::map<const ir::Var *, std::vector<Site>> Defs;
  std::map<const ir::Var *, std::vector<Site>> Reads;
  std::map<const ir::Var *, bool> AddressTaken;
  /// The loops whose init / increment a statement is, and where loops are.
  std::map<const ir::Stmt *, const ir::ForStmt *> LoopInits, LoopIncs;
  std::map<const ir::ForStmt *, Place> LoopPlaces;
  /// The first statement of each reverse loop's body, and the loop.
  std::map<const ir::Stmt *, const ir::ForStmt *> FirstOfReverse;
  std::map<const ir::Var *, CountedLoop> Counted;
  std::set<const ir::Var *> TripCounters;
  /// The block of each statement and its index there.
  std::map<const ir::Stmt *, std::pair<const ir::BlockStmt *, unsigned>>
      Positions;
};

/// The launch dimensions in which the threads of \p Kernel may differ, as
/// threadDimsOf (IndexForms.h) gives them, less the thread indices read by
/// loops that only store into __shared__ memory: reverse mode zeroes a
/// __shared__ array's adjoint from the block's linear thread id
/// (`threadIdx.x + blockDim.x * (threadIdx.y + ...)`) for any launch shape,
/// which tells nothing of the global memory the threads touch. For the
/// ownership proofs only, whose launch shape the generated kernel checks.
unsigned threadDimsBesidesFills(const ir::Function &Kernel);

} // namespace ownership
} // namespace meshad

#endif // MESHAD_ANALYSIS_SWEEPDEFS_H
