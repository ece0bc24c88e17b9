//===- AD/Hvp.h - Hessian-vector products -----------------------*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// meshad::hvp(f, "x, p"): Hv = (d^2 f) v, forward mode over the unlowered
/// reverse mode, with no Hessian formed:
///   1. the gradient of f, its adjoint stores left as AssignOp::Accumulate
///      (ReverseModeTransformer::deriveUnloweredGradient);
///   2. forward mode over that gradient, with the directions v as the
///      tangents of the selected inputs: the tangents of the gradient's
///      adjoints are Hv (tapes carry a tangent tape, pullbacks get
///      pushforwards, an Accumulate's tangent is an Accumulate);
///   3. the gradient's own buffers are dropped (only Hv is returned), with
///      their stores, also in the callees that the buffers are passed to
///      (tangent-only variants of the pullbacks' pushforwards);
///   4. GPU/LowerAccumulations decides the form of every add, last.
/// The result, <f>_hvp, takes f's parameters, one direction per selected
/// parameter (a value for a scalar, an array for an array), one result per
/// selected parameter (a pointer for a scalar, an array for an array;
/// results accumulate), in parameter order; for kernels and other void
/// functions, then one seed per array the function writes (the weights of
/// its outputs in the scalar whose Hessian is taken: seedE[0] = 1 for an
/// energy summed into E[0]).
///
/// \code
///   HvpTransformer H(M, Diags, Derived, Forward, Reverse);
///   ir::Function *Hv = H.deriveHvp(F, {true, false, true}, "f_hvp", Loc);
/// \endcode
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_TRANSFORM_HVP_H
#define MESHAD_TRANSFORM_HVP_H

#include "IR/Clone.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "AD/Forward/ForwardMode.h"
#include "AD/Reverse/ReverseMode.h"

#include <map>

namespace meshad {

class HvpTransformer {
public:
  HvpTransformer(ir::Module &M, DiagnosticSink &Diags,
                 DerivedFunctionSet &Derived, ForwardModeTransformer &Forward,
                 ReverseModeTransformer &Reverse)
      : M(M), Diags(Diags), Derived(Derived), Forward(Forward),
        Reverse(Reverse) {}

  /// The Hessian-vector product of \p Primal w.r.t. the parameters flagged
  /// in \p Selected, named \p Name. Null after reporting errors at \p Loc.
  ir::Function *deriveHvp(ir::Function *Primal,
                          const std::vector<bool> &Selected,
                          const std::string &Name, clang::SourceLocation Loc);

private:
  /// The arrays \p Primal writes (its outputs); false after an error when
  /// a selected parameter is one, or the function has no scalar to take
  /// the Hessian of.
  bool findOutputs(const ir::Function &Primal,
                   const std::vector<bool> &Selected,
                   std::vector<bool> &Outputs, clang::SourceLocation Loc);
  /// Drops the gradient buffer \p Buffer (the adjoint of \p Of) from \p F:
  /// its stores go, and calls that pass it on call variants of their
  /// callees without that parameter (variantWithout). False after an error
  /// when \p F still reads or aliases it.
  bool dropBuffer(ir::Function &F, const ir::Var *Buffer,
                  const std::string &Of, clang::SourceLocation Loc);
  /// The call \p Call of \p F without its arguments rooted at \p Buffer,
  /// or null when it passes none (\p Ok false after an error).
  const ir::Stmt *callWithout(ir::Function &F, const ir::CallExpr *Call,
                              const llvm::SmallPtrSetImpl<const ir::Var *> &Vars,
                              ir::IRCloner &C, bool &Ok);
  /// A copy of the generated function \p Callee without the parameters
  /// numbered in \p Drop, gradient buffers whose stores it drops too
  /// (<callee>_no_d_p: the tangent-only pushforward of a pullback).
  ir::Function *variantWithout(ir::Function *Callee,
                               const std::vector<unsigned> &Drop,
                               clang::SourceLocation Loc);

  /// Calls of generated functions in \p F that pass the address of a
  /// local nobody reads (a first-order adjoint the HVP drops) call
  /// variants without those results (<callee>_no_d_a), whose stores go.
  void dropUnreadResults(ir::Function &F);
  /// dropUnreadResults, then the pushforward calls nobody reads go
  /// (AD/DeadPushforwards.h).
  void cleanUp(ir::Function &F);
  /// Removes the functions generated since the \p Mark-th that the HVP
  /// \p H no longer calls (the gradient's pullbacks, callees replaced by
  /// their variants).
  void dropUnusedFunctions(size_t Mark, ir::Function *H);
  /// Runs on the HVP \p H of \p Primal what follows forward mode: the
  /// clean-up of what the dropped buffers leave (functions generated since
  /// the \p Mark-th that it no longer calls go), then the GPU lowering
  /// (\p UserNames: the results' names for remarks). False after an error.
  bool finishHvp(ir::Function &H, ir::Function *Primal, size_t Mark,
                 std::map<const ir::Var *, std::string> UserNames);
  /// Diags.error unless Quiet (a variant that is only tried).
  void report(clang::SourceLocation Loc, const std::string &Msg);

  ir::Module &M;
  DiagnosticSink &Diags;
  DerivedFunctionSet &Derived;
  ForwardModeTransformer &Forward;
  ReverseModeTransformer &Reverse;
  bool Quiet = false;
};

} // namespace meshad

#endif // MESHAD_TRANSFORM_HVP_H
