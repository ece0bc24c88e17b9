//===- Transform/PassPipeline.h - Passes over a function --------*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// A pass pipeline: named passes that rewrite one generated function in
/// place, run in the order they were added. With verification on
/// (-fplugin-arg-meshad-verify, meshad-gen --verify, builds with
/// assertions) the IR verifier checks the function after each pass, at the
/// stage the pass leaves it in; a malformed function is an internal error
/// at its location naming the pass, and the passes after it do not run.
/// Problems the primal has itself (a barrier the user's kernel already runs
/// under a thread-dependent branch) are not the pass's doing and are not
/// reported, nor are functions once an error has been reported (they may be
/// partial, and nothing is emitted then).
///
/// The passes of each mode are listed in one place: GPU/GpuPasses.h (what
/// finishes a gradient kernel, a composed derivative) and Driver/Generator
/// (what every generated function goes through before emission).
///
/// \code
///   PassPipeline P(Diags, /*Verify=*/true);
///   P.add("dead-locals", [](ir::Function &F) { removeDeadLocals(F); })
///       .add("lower-accumulations", Lower, ir::VerifyStage::Lowered);
///   if (!P.run(*Hvp, Primal))
///     return nullptr;
/// \endcode
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_TRANSFORM_PASSPIPELINE_H
#define MESHAD_TRANSFORM_PASSPIPELINE_H

#include "IR/IR.h"
#include "IR/Verifier.h"
#include "Support/Diagnostics.h"

#include "llvm/ADT/StringRef.h"

#include <functional>
#include <string>
#include <vector>

namespace meshad {

/// Runs named passes over generated functions, verifying after each.
class PassPipeline {
public:
  using PassFn = std::function<void(ir::Function &)>;

  PassPipeline(DiagnosticSink &Diags, bool Verify)
      : Diags(Diags), Verify(Verify) {}

  /// Appends the pass \p Run, called \p Name in internal errors, which
  /// leaves a function at stage \p After.
  PassPipeline &add(std::string Name, PassFn Run,
                    ir::VerifyStage After = ir::VerifyStage::Transformed);

  /// Runs every pass on \p F (generated from \p Primal, or null) in order.
  /// False after an internal error (a pass left \p F malformed).
  bool run(ir::Function &F, const ir::Function *Primal = nullptr) const;

  /// The names of the passes, in order.
  std::vector<std::string> getPassNames() const;
  bool isVerifying() const { return Verify; }

private:
  struct Pass {
    std::string Name;
    PassFn Run;
    ir::VerifyStage After;
  };
  DiagnosticSink &Diags;
  bool Verify;
  std::vector<Pass> Passes;
};

/// Verifies the generated function \p D (from \p Primal, or null) at
/// \p Stage and reports the problems that \p Primal does not have itself as
/// an internal error at \p D's location, naming \p After (the pass or mode
/// that produced \p D) when it is not empty. True when none is reported.
bool verifyGenerated(const ir::Function &D, const ir::Function *Primal,
                     ir::VerifyStage Stage, llvm::StringRef After,
                     DiagnosticSink &Diags);

/// Whether to verify the IR: when \p Requested, and always in builds with
/// assertions.
bool shouldVerify(bool Requested);

} // namespace meshad

#endif // MESHAD_TRANSFORM_PASSPIPELINE_H
