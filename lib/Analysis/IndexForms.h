//===- Analysis/IndexForms.h - Index expressions as affine forms -*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The ownership analysis evaluates the integer expressions of a kernel to
/// affine forms: a literal plus literal multiples of monomials, products of
/// atoms. Atoms are the global thread ids per dimension (blockIdx*blockDim +
/// threadIdx), grid-stride loop counters, the CUDA builtins and opaque
/// uniform symbols (unassigned scalar parameters, loop counters with uniform
/// bounds, non-affine expressions over uniform values). A monomial holds at
/// most one thread-dependent atom, so `gy * W + gx` is the form
/// 1*{gid.y, W} + 1*{gid.x}.
///
/// On request (setGatherArrays), loads from index arrays that the kernel
/// never writes are atoms too: `edges[2*e + 1]` is the Gathered atom
/// {edges, 2*gid.x + 1}, so that `x[3*a + k]` with `int a = edges[2*e+1]`
/// is 3*{a} + k (the element maps of ElementMaps.h). The ownership analysis
/// does not ask for them: there, a gather stays "not affine".
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_ANALYSIS_INDEXFORMS_H
#define MESHAD_ANALYSIS_INDEXFORMS_H

#include "AD/Analysis/ReverseNeeds.h"
#include "IR/IR.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallVector.h"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

namespace meshad {
namespace ownership {

class SweepDefs;
struct CountedLoop;

/// What an atom of an affine form ranges over.
enum class AtomKind {
  Gid,          ///< blockIdx.<Dim>*blockDim.<Dim> + threadIdx.<Dim>.
  GridStride,   ///< A grid-stride loop counter (gid + k*total threads, 1D).
  Gathered,     ///< A value read from an index array, see GatherInfo.
  ThreadIdx,    ///< threadIdx.<Dim> (without a matching block base).
  BlockIdx,     ///< blockIdx.<Dim>.
  BlockBase,    ///< blockIdx.<Dim>*blockDim.<Dim>.
  BlockDim,     ///< blockDim.<Dim> (uniform).
  GridDim,      ///< gridDim.<Dim> (uniform).
  TotalThreads, ///< blockDim.<Dim>*gridDim.<Dim> (uniform).
  Symbol,       ///< An opaque uniform value, see SymbolInfo.
};

/// One atom; Symbol, GridStride and Gathered atoms are numbered by the
/// evaluator in the order it meets them, which keeps remarks deterministic.
struct Atom {
  AtomKind Kind;
  unsigned Dim = 0;
  unsigned Id = 0;

  bool operator<(const Atom &O) const {
    return std::tie(Kind, Dim, Id) < std::tie(O.Kind, O.Dim, O.Id);
  }
  bool operator==(const Atom &O) const {
    return Kind == O.Kind && Dim == O.Dim && Id == O.Id;
  }
  /// True for atoms whose value differs between threads.
  bool isThreadDependent() const {
    return Kind == AtomKind::Gid || Kind == AtomKind::GridStride ||
           Kind == AtomKind::Gathered || Kind == AtomKind::ThreadIdx ||
           Kind == AtomKind::BlockIdx || Kind == AtomKind::BlockBase;
  }
};

/// A product of atoms, sorted; never empty inside an Affine.
using Monomial = std::vector<Atom>;

/// The thread-dependent atom of \p M, if any (at most one by construction).
std::optional<Atom> threadAtomOf(const Monomial &M);

/// Const + sum of Coeff * Monomial with literal integers.
struct Affine {
  std::map<Monomial, long long> Terms;
  long long Const = 0;

  bool isLiteral() const { return Terms.empty(); }
  bool isThreadDependent() const;
  /// True when this is exactly 1 * A.
  bool isAtom(AtomKind K, unsigned Dim = 0) const;
  bool operator==(const Affine &O) const {
    return Const == O.Const && Terms == O.Terms;
  }
  static Affine literal(long long C) {
    Affine A;
    A.Const = C;
    return A;
  }
  static Affine atom(Atom At) {
    Affine A;
    A.Terms[{At}] = 1;
    return A;
  }
};

/// The launch dimensions in which the threads of \p Kernel may differ: bit
/// D is set when threadIdx.<D> or blockIdx.<D> is read anywhere in the
/// kernel (directly, through locals, or in a device function it calls).
/// Bit 0 (x) is always set. Statements for which \p Skip returns true (and
/// their own expressions) are not read.
unsigned threadDimsOf(const ir::Function &Kernel,
                      llvm::function_ref<bool(const ir::Stmt *)> Skip = nullptr);

/// True for an integer type narrower than int (char, short, bool): their
/// values wrap modulo 2^8 or 2^16, not modulo the thread count.
bool isNarrowInteger(const ir::Type *Ty);

/// A + Sign * B, or false on overflow.
bool addScaled(Affine &A, const Affine &B, long long Sign);

/// Folds c*blockIdx.d*blockDim.d*M + c*threadIdx.d*M into c*gid.d*M.
void foldGid(Affine &A);

/// An opaque uniform value (the same in every thread at a given point).
struct SymbolInfo {
  std::string Name;
  /// False when the value may change while a variable holding it lives (a
  /// variable assigned more than once): such forms are never substituted.
  bool Stable = true;
  /// True when the value is the same during the whole kernel (an unassigned
  /// parameter), false for loop counters and values computed from them.
  bool Invariant = true;
  /// True when the value is known to be >= 0 (an unsigned parameter).
  bool NonNegative = false;
  /// For loop counters with literal bounds: every value the body sees.
  std::optional<std::pair<long long, long long>> Range;
};

/// A value loaded from an index array: Array[Position]. The array is one
/// the kernel never writes, so equal positions give equal values.
struct GatherInfo {
  const ir::Var *Array = nullptr;
  Affine Position;
  /// The first local holding the value ("a"), else the load as written.
  std::string Name;
  bool NamedByLocal = false;
};

/// The result of evaluating an integer expression: an affine form, or why
/// there is none.
struct Eval {
  bool Ok = true;
  Affine Form;
  std::string Why;
  /// The subexpression that is not affine (null when it is a variable's).
  const ir::Expr *Culprit = nullptr;

  static Eval ok(Affine A) {
    Eval R;
    R.Form = std::move(A);
    return R;
  }
  static Eval fail(std::string Why, const ir::Expr *Culprit = nullptr) {
    Eval R;
    R.Ok = false;
    R.Why = std::move(Why);
    R.Culprit = Culprit;
    return R;
  }
};

/// Evaluates the integer expressions of one kernel to affine forms.
class IndexEvaluator {
public:
  explicit IndexEvaluator(const ir::Function &Kernel);

  Eval eval(const ir::Expr *E);
  const SymbolInfo &getSymbol(unsigned Id) const { return Symbols[Id]; }
  /// Loads from \p Arrays (integer array parameters that the kernel never
  /// writes) evaluate to Gathered atoms from now on; other loads stay "not
  /// affine". Call before the first eval.
  void setGatherArrays(llvm::ArrayRef<const ir::Var *> Arrays) {
    GatherArrays.insert(Arrays.begin(), Arrays.end());
  }
  const GatherInfo &getGather(unsigned Id) const { return Gathers[Id]; }
  /// True when no symbol of \p A may change while a variable holds it.
  bool isStable(const Affine &A) const;
  /// True when every symbol of \p A keeps its value during the whole kernel.
  bool isInvariant(const Affine &A) const;
  /// True when \p A is known to be >= 0.
  bool isNonNegative(const Affine &A) const;

  /// "threadIdx.x", "W", "gx" (the first variable holding gid.x) or "gid.y".
  std::string spellAtom(const Atom &A) const;
  std::string spellMonomial(const Monomial &M) const;
  /// "3*gy*W + 3*gx + 2".
  std::string spell(const Affine &A) const;

private:
  struct Loop {
    CanonicalLoop Canonical;
    const ir::ForStmt *For;
  };
  /// A loop condition `counter Op Bound` with a literal Bound.
  struct CounterBound {
    ir::BinaryOp Op;
    long long Bound;
    /// False when the counter or the comparison is unsigned.
    bool Signed;
  };

  Eval evalBuiltin(const ir::BuiltinExpr *B);
  /// A load x[i] (IndexGathers.cpp): a Gathered atom when x is one of
  /// GatherArrays, else "gather through an index array x".
  Eval evalIndex(const ir::IndexExpr *I);
  /// An integer cast: the value of its operand, unless it narrows a loaded
  /// value (which may wrap).
  Eval evalCast(const ir::CastExpr *C);
  /// Names the Gathered atom that \p Form is after the local \p V.
  void nameGather(const ir::Var *V, const Affine &Form);
  Eval evalUnary(const ir::UnaryExpr *U);
  Eval evalVar(const ir::Var *V);
  Eval evalVarUncached(const ir::Var *V);
  Eval evalLoopCounter(const ir::Var *V, const Loop &L);
  /// The counter of a loop that reverse loops recompute (SweepDefs.h): its
  /// loop's symbol, when each recomputation is Init +- (trips - 1) * Step
  /// in stable, uniform forms; else nullopt.
  std::optional<Eval> evalCounted(const ir::Var *V, const CountedLoop &C);
  Eval evalSingleDef(const ir::Var *V, const ir::Expr *Init);
  Eval evalMultiDef(const ir::Var *V);
  /// "" when every definition of \p V gives it gid.x + c*T (T =
  /// blockDim.x*gridDim.x, c an integer without thread-dependent atoms) or
  /// adds a multiple of T, else why not.
  std::string whyNotGridStride(const ir::Var *V);
  /// True when \p V is set before any use reads it: declared with a value,
  /// or set by a statement of the kernel's body (or the initialisation of
  /// a loop there) that no other use of \p V precedes.
  bool isSetBeforeUse(const ir::Var *V) const;
  Eval evalBinary(const ir::BinaryExpr *B);
  Eval evalProduct(const ir::BinaryExpr *B, const Affine &L, const Affine &R);
  /// The values the body of \p L gives its counter, when its start, step
  /// and bound are literals.
  std::optional<std::pair<long long, long long>>
  literalRange(const Loop &L, const Affine &Init, const Affine &Step);
  /// \p Cond as a comparison of the counter of \p L with a literal.
  std::optional<CounterBound> counterBound(const Loop &L,
                                           const ir::Expr *Cond);
  /// An opaque uniform symbol for \p E when all \p Parts are uniform forms,
  /// else "not affine".
  Eval opaque(const ir::Expr *E, llvm::ArrayRef<const Eval *> Parts);
  Eval symbol(const void *Key, SymbolInfo Info);
  /// The number of the symbol or counter keyed by \p Key.
  unsigned intern(const void *Key, SymbolInfo Info);

  /// The locals a reverse sweep reassigns (guarded values, counted loops;
  /// Analysis/SweepDefs.h).
  std::shared_ptr<const SweepDefs> Sweeps;
  llvm::DenseMap<const ir::Var *, llvm::SmallVector<const ir::Stmt *, 2>> Defs;
  llvm::DenseMap<const ir::Var *, Loop> Loops;
  llvm::SmallPtrSet<const ir::Var *, 8> AddressTaken;
  /// The statements of the kernel's body itself (not nested).
  llvm::SmallPtrSet<const ir::Stmt *, 16> TopLevel;
  std::vector<const ir::Stmt *> TopLevelOrder;
  std::map<const ir::Var *, Eval> Cache;
  llvm::SmallPtrSet<const ir::Var *, 8> InProgress;
  llvm::DenseMap<const void *, unsigned> SymbolIds;
  std::vector<SymbolInfo> Symbols;
  /// The first variable found to hold gid.<Dim>, per dimension.
  std::map<unsigned, std::string> GidNames;
  llvm::SmallPtrSet<const ir::Var *, 4> GatherArrays;
  std::vector<GatherInfo> Gathers;
};

} // namespace ownership
} // namespace meshad

#endif // MESHAD_ANALYSIS_INDEXFORMS_H
