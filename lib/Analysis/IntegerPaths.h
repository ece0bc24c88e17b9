//===- Analysis/IntegerPaths.h - One thread's integer paths -----*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Runs a generated function's integer control flow along every path of one
/// thread, abstractly: integer and bool locals hold a constant, `a*t + b`
/// (t the element id, issue 11) or nothing known; a comparison of t with the
/// element count n is the fact "t < n" or its negation; tapes of such values
/// (meshad::push/pop) are stacks. Loops whose conditions are known are
/// unrolled; an if whose condition is unknown forks the path (the bool local
/// it tests takes each value on one side, so a later if on the same local
/// follows it). Floating-point values are never known; their operations are
/// counted (a math call weighs 8, as in Analysis/ElementWork.h).
///
/// Subclasses watch the statements executed on each path (visit) and check
/// each finished path (finish). The walk gives up, with the reason and the
/// construct's location, when a loop whose trip count is not known contains
/// what a subclass watches (watches), or when there are too many paths.
///
/// \code
///   class Counter : public IntegerPaths {
///     bool visit(const ir::Stmt *S, PathState &P) override { ... }
///   };
///   Counter C(F);
///   C.setElement(E, Count);
///   if (!C.run()) remark(C.whereNot(), C.whyNot());
/// \endcode
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_ANALYSIS_INTEGERPATHS_H
#define MESHAD_ANALYSIS_INTEGERPATHS_H

#include "IR/IR.h"

#include "llvm/ADT/DenseSet.h"

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace meshad {

/// An integer value of the walk.
struct PathValue {
  enum Kind { Unknown, Affine, InRange };
  Kind K = Unknown;
  /// Affine: A*t + B. InRange: B is 1 for t < n, 0 for t >= n.
  long long A = 0, B = 0;

  static PathValue constant(long long V) { return {Affine, 0, V}; }
  static PathValue inRange(bool Holds) { return {InRange, 0, Holds}; }
  bool isConstant() const { return K == Affine && A == 0; }
};

/// The state of one path.
struct PathState {
  enum class Flow { Normal, Break, Continue, Return };
  std::map<const ir::Var *, PathValue> Vars;
  /// The tapes whose contents are followed.
  std::map<const ir::Var *, std::vector<PathValue>> Tapes;
  /// Whether t < n holds on this path: -1 unknown, 1 or 0.
  int InRange = -1;
  /// The last if whose condition was unknown (null: none).
  const ir::Stmt *LastBranch = nullptr;
  /// Floating-point operations executed (math calls weighted).
  unsigned long long Operations = 0;
  /// For subclasses: counts keyed by pairs, and where each was first
  /// counted.
  std::map<std::pair<long long, long long>, unsigned> Counts;
  std::map<std::pair<long long, long long>, const ir::Stmt *> FirstAt;
  Flow F = Flow::Normal;
};

class IntegerPaths {
public:
  explicit IntegerPaths(const ir::Function &F);
  virtual ~IntegerPaths() = default;

  /// Reads of \p T are the element id t (1*t + 0): \p T must be assigned
  /// once; comparisons of t with \p Count are the fact t < n.
  void setElement(const ir::Var *T, const ir::Expr *Count) {
    Element = T;
    this->Count = Count;
  }
  /// Grid-stride kernels (several elements per thread, t a loop counter):
  /// a loop whose trip count is not known runs one element per iteration
  /// when it is the forward sweep's (t its counter, nothing watched in it)
  /// or the reverse sweep's (it contains what a subclass watches, and its
  /// body starts, before anything watched, by assigning t once at its top
  /// level). Each body is walked once from the state before the loop (what
  /// the loop assigns forgotten): the forward one with empty tapes, so that
  /// its paths end with one iteration's pushes, which the reverse one pops
  /// (the reverse sweep's iteration pops what its forward iteration pushed);
  /// finishElement() checks each path of the reverse one. A break or return
  /// in such a loop gives up.
  void setElementLoops(bool On) { ElementLoops = On; }
  /// Walks every path; false with whyNot()/whereNot() when it gave up or a
  /// subclass failed.
  bool run();
  /// The value of \p E on \p P (pops its tapes, counts its operations).
  PathValue eval(const ir::Expr *E, PathState &P);

  const std::string &whyNot() const { return Why; }
  clang::SourceLocation whereNot() const { return Where; }
  /// The most operations of one path (valid after run()).
  unsigned long long maxOperations() const { return MaxOperations; }

protected:
  /// Called for each declaration, assignment and expression statement
  /// executed, before its effect; false after fail().
  virtual bool visit(const ir::Stmt *S, PathState &P) { return true; }
  /// Called for each path that reached the end or a return.
  virtual bool finish(const PathState &P) { return true; }
  /// Called for each path of one iteration of a loop over a thread's
  /// elements (setElementLoops).
  virtual bool finishElement(const PathState &P) { return true; }
  /// True when \p S contains what visit() watches: a loop around it must
  /// have a known trip count.
  virtual bool watches(const ir::Stmt *S) const { return false; }
  /// Records the reason; returns false.
  bool fail(const std::string &Reason, clang::SourceLocation Loc);
  bool failed() const { return Failed; }

  const ir::Function &F;

private:
  using Paths = std::vector<PathState>;
  void exec(const ir::Stmt *S, PathState P, Paths &Out);
  void execBlock(const ir::BlockStmt *B, PathState P, Paths &Out);
  void execIf(const ir::IfStmt *S, PathState P, Paths &Out);
  void execLoop(const ir::Stmt *Loop, const ir::Expr *Cond,
                const ir::Stmt *Inc, const ir::BlockStmt *Body, bool CondFirst,
                PathState P, Paths &Out);
  void execSimple(const ir::Stmt *S, PathState &P);
  void assign(const ir::AssignStmt *A, PathState &P);
  /// A loop whose trip count is not known: forgets what it assigns.
  bool skipLoop(const ir::Stmt *Loop, PathState &P);
  void forget(const ir::Stmt *Loop, PathState &P);
  void forgetVars(const ir::Stmt *Loop, PathState &P);
  /// The tapes pushed or popped in \p Loop.
  static std::vector<const ir::Var *> tapesOf(const ir::Stmt *Loop);
  /// Whether \p Loop is a loop over a thread's elements (setElementLoops):
  /// the forward sweep's (t its counter) or the reverse sweep's (t assigned
  /// at the top of its body; else a failure).
  bool isElementLoop(const ir::Stmt *Loop, const ir::BlockStmt *Body);
  /// One iteration of a loop over a thread's elements, \p Body, from \p P:
  /// the forward sweep's leaves one state per path with that iteration's
  /// pushes on its tapes; the reverse sweep's pops them, and each of its
  /// paths goes to finishElement.
  void execElementLoop(const ir::Stmt *Loop, const ir::BlockStmt *Body,
                       PathState P, Paths &Out);
  PathValue evalBinary(const ir::BinaryExpr *B, PathState &P);
  /// -x, +x, !x of affine, constant or in-range values.
  PathValue evalUnary(const ir::UnaryExpr *U, PathState &P);
  /// A value popped from a tape the path pushed it on; other calls are
  /// unknown (their arguments evaluated, math calls weighed).
  PathValue evalCall(const ir::CallExpr *C, PathState &P);
  /// P with \p Cond known to be \p Holds; false when it cannot be.
  bool assume(const ir::Expr *Cond, PathValue C, bool Holds, PathState &P);

  const ir::Var *Element = nullptr;
  const ir::Expr *Count = nullptr;
  bool ElementLoops = false;
  llvm::DenseSet<const ir::Var *> AddressTaken;
  bool Failed = false;
  std::string Why;
  clang::SourceLocation Where;
  unsigned long long Steps = 0;
  unsigned long long MaxOperations = 0;
};

} // namespace meshad

#endif // MESHAD_ANALYSIS_INTEGERPATHS_H
