//===- AD/Hessian.h - Dense local Hessians ----------------------*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// meshad::hessian(f, "x[0:9]"): the dense k x k Hessian of a scalar
/// function w.r.t. k selected inputs, row-major, in the spec's order, in
/// one derived function <f>_hessian(args..., H):
///   1. the Hessian-vector product of f (AD/Hvp.h: forward mode over the
///      unlowered gradient), with a symbolic direction per selected
///      parameter;
///   2. its tangent code unrolled into k lanes (HessianLanes): one copy of
///      each statement that computes a tangent per selected input, the
///      direction of lane j the unit vector e_j (literals, which the
///      simplifier folds: a lane keeps only what depends on its input),
///      the primal and the gradient computed once; the tangent of the
///      adjoint of input i on lane j is H[i][j];
///   3. every entry of H zeroed first, then the lanes add into their
///      column.
///
/// \code
///   HessianLayout L;                       // "p[0:3], w" of f(p, n, w)
///   L.Blocks = {{0, 0, 3, 0, false}, {2, 0, 1, 3, true}};
///   L.Size = 4;
///   HessianTransformer T(M, Diags, Hvp);
///   ir::Function *H = T.deriveHessian(F, L, "f_hessian", Loc);
/// \endcode
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_AD_HESSIAN_H
#define MESHAD_AD_HESSIAN_H

#include "AD/Hvp.h"
#include "IR/NameScope.h"

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace meshad {

/// The selected elements of one parameter: lanes Offset .. Offset +
/// (End - Begin) of the Hessian are its elements Begin .. End - 1 (a scalar
/// parameter: one lane, Begin 0, End 1).
struct HessianBlock {
  unsigned Param = 0;
  unsigned Begin = 0, End = 1;
  unsigned Offset = 0;
  bool Scalar = true;
};

/// The rows (and columns) of a Hessian: the selected inputs in spec order.
struct HessianLayout {
  std::vector<HessianBlock> Blocks;
  unsigned Size = 0;
  /// "p[0:3],w": identifies the layout in names and lookups.
  std::string key() const;
};

/// The structure of a generated Hessian (what meshad::HessianPattern
/// holds at run time): entry e = i * Size + j holds unique value Value[e]
/// times Sign[e], or is a structural zero (Value[e] == -1).
struct HessianPatternInfo {
  unsigned Size = 0;
  unsigned NumValues = 0;
  std::vector<int> Value;
  std::vector<int> Sign;
  /// <f>_hessian_packed(args..., vals): writes the NumValues values.
  ir::Function *Packed = nullptr;

  /// Every entry its own value (run-time indices: no structure known).
  static HessianPatternInfo dense(unsigned K);
  /// One value per entry of \p Lower (on or below the diagonal, numbered
  /// in row-major order), shared with its mirror; the rest zero.
  static HessianPatternInfo symmetric(unsigned K,
                                      const std::set<long long> &Lower);
  /// The pattern as the comment the dense function starts with.
  std::string comment() const;
};

/// Finds the entries of the straight-line Hessian \p F (output \p H,
/// pattern \p P: symmetric) equal to an earlier one or to its negation,
/// or symbolically zero (AD/HessianRepeats.cpp): only one of each is
/// computed, the others copied; \p P says which value each holds. False
/// (nothing changed) when \p F is not code it can evaluate symbolically.
bool shareRepeatedEntries(ir::Module &M, ir::Function &F, ir::Var *H,
                          HessianPatternInfo &P);

class HessianTransformer {
public:
  HessianTransformer(ir::Module &M, DiagnosticSink &Diags, HvpTransformer &Hvp,
                     DerivedFunctionSet &Derived)
      : M(M), Diags(Diags), Hvp(Hvp), Derived(Derived) {}

  /// The pattern of the Hessian \p D this transformer made, or null.
  const HessianPatternInfo *patternOf(const ir::Function *D) const {
    auto It = Patterns.find(D);
    return It == Patterns.end() ? nullptr : &It->second;
  }

  /// The dense Hessian of \p Primal (a function returning a floating-point
  /// value, not a kernel) over \p Layout: `void <Name>(params..., T *H)`.
  /// Repeated requests for the same layout share one function. Null after
  /// reporting errors at \p Loc.
  ir::Function *deriveHessian(ir::Function *Primal, const HessianLayout &Layout,
                              std::string Name, clang::SourceLocation Loc);

private:
  /// The packed variant of the dense Hessian \p H (output \p HParam).
  ir::Function *makePacked(ir::Function *Primal, ir::Function &H,
                           ir::Var *HParam, const HessianPatternInfo &P);

  ir::Module &M;
  DiagnosticSink &Diags;
  HvpTransformer &Hvp;
  DerivedFunctionSet &Derived;
  std::map<const ir::Function *, HessianPatternInfo> Patterns;
  /// Done requests, by primal and layout.
  std::map<std::pair<const ir::Function *, std::string>, ir::Function *> Done;
  std::map<std::string, unsigned> NamesTaken;
};

/// Rewrites the Hessian-vector product \p H (parameters: the primal's, then
/// a direction and a result per block's parameter, in parameter order) into
/// the dense Hessian over \p Layout, in place: the directions and results
/// become the one output \p HParam. False after reporting errors at \p Loc.
bool expandHessianLanes(ir::Module &M, ir::Function &H, unsigned NumPrimal,
                        const HessianLayout &Layout, ir::Var *HParam,
                        DiagnosticSink &Diags, clang::SourceLocation Loc);

/// \p Primal, or a copy of it (same name, parameters and source) whose
/// `for` loops of at most 16 constant trips are unrolled
/// (AD/HessianUnroll.cpp).
ir::Function *unrollSmallLoops(ir::Module &M, ir::Function &Primal);

/// The copy of \p Primal that the Hessian over the \p Selected parameters
/// derives from: callees that receive a selected array inlined
/// (AD/HessianInline.cpp), pointer locals into selected arrays turned into
/// offsets (rewriteSelectedPointers), int locals folded, small constant
/// loops unrolled (unrollSmallLoops); \p Primal itself when none applies.
/// Null after reporting errors at the construct (or \p Loc).
ir::Function *prepareHessianPrimal(ir::Module &M, DiagnosticSink &Diags,
                                   ir::Function &Primal,
                                   const std::vector<bool> &Selected,
                                   clang::SourceLocation Loc);

/// \p Body with every pointer local set into a selected array of \p Primal
/// replaced by an int offset into it (`p += 3` moves the offset, `p[k]` is
/// `x[p_offset + k]`, AD/HessianPointers.cpp); null when it has none.
/// \p Failed after reporting errors.
ir::BlockStmt *rewriteSelectedPointers(ir::Module &M, DiagnosticSink &Diags,
                                       const ir::Function &Primal,
                                       const ir::BlockStmt *Body,
                                       const std::vector<bool> &Selected,
                                       clang::SourceLocation Loc, bool &Failed);

/// \p Body with int locals of known value replaced by literals through
/// straight-line code and integer arithmetic on literals folded.
ir::BlockStmt *foldIntLocals(ir::Module &M, const ir::BlockStmt *Body);

/// `for (int i = 0; i < Count; ++i) Out[i] = 0;`, i named in \p Names.
const ir::Stmt *zeroFill(ir::Module &M, ir::NameScope &Names, ir::Var *Out,
                         unsigned Count);

/// Constant propagation over the floating-point locals of \p F (the lanes'
/// literal directions), literal arithmetic folded, adds of 0 dropped
/// (AD/HessianSparsity.cpp).
void foldLaneConstants(ir::Module &M, ir::Function &F);

/// When every add into the K x K Hessian \p H has a constant index: drops
/// the adds above the diagonal and copies each entry added to below it to
/// its mirror at the end of \p F; returns the entries added to on and
/// below the diagonal. None (and \p F unchanged) otherwise.
std::optional<std::set<long long>>
keepLowerTriangle(ir::Module &M, ir::Function &F, ir::Var *H, unsigned K);

} // namespace meshad

#endif // MESHAD_AD_HESSIAN_H
