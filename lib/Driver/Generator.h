//===- Driver/Generator.h - From a parsed TU to generated source -*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The generator runs the pipeline (plan, lower, analyse, transform, emit) on
/// a parsed translation unit and describes the augmented main file as a list
/// of text edits to the original. The plugin applies them to the main buffer
/// before the real parse; meshad-gen writes the result to a file.
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_DRIVER_GENERATOR_H
#define MESHAD_DRIVER_GENERATOR_H

#include "Support/Diagnostics.h"

#include "llvm/ADT/StringRef.h"

#include <string>
#include <vector>

namespace clang {
class ASTContext;
} // namespace clang

namespace meshad {

/// Insert Text at byte Offset of the original main file, after removing
/// RemoveLength bytes there.
struct TextEdit {
  unsigned Offset = 0;
  unsigned RemoveLength = 0;
  std::string Text;
};

struct GeneratorOptions {
  /// Wrap generated text in #line directives so that diagnostics in user
  /// code keep their original lines (the plugin); meshad-gen turns it off.
  bool LineDirectives = true;
  /// Report one remark per adjoint store of a kernel: how it is written
  /// (plain, atomic) and why (-fplugin-arg-meshad-remarks).
  bool Remarks = false;
  /// Keep atomicAdd on every adjoint store that other threads can reach,
  /// ignoring the ownership analysis (-fplugin-arg-meshad-atomics=all): the
  /// baseline of the ownership benchmark, and a way to rule meshad's
  /// decisions out when debugging.
  bool ForceAtomics = false;
  /// Element gradients as before plain slot stores and own-part pullbacks
  /// (-fplugin-arg-meshad-element-baseline): two-phase slots zeroed and
  /// added to, the gather's whole pullback per vertex; the baseline of the
  /// elements benchmark.
  bool ElementBaseline = false;
  /// Own-part pullbacks in gathers wherever they save any work
  /// (-fplugin-arg-meshad-element-parts=always).
  bool ElementPartsAlways = false;
  /// Sum block-uniform adjoint adds of reverse loops per warp only, not per
  /// block (the default, -fplugin-arg-meshad-uniform-sums=warp; the block
  /// form, uniform-sums=block, measured 2.2x slower on the splat backward
  /// on an H100, 2026-11-25; GPU/BlockUniformReduce).
  bool UniformSumsPerWarp = true;
  /// Classify each gradient kernel's adjoint arrays both on the primal and
  /// on the finished function and warn at each difference
  /// (-fplugin-arg-meshad-ownership-crosscheck; GPU/OwnershipCrossCheck).
  bool OwnershipCrossCheck = false;
  /// Run the IR verifier (IR/Verifier.h) after each mode transform and
  /// before emission (-fplugin-arg-meshad-verify, meshad-gen --verify;
  /// always on in builds with assertions). A malformed generated function is
  /// an internal error at its location.
  bool Verify = false;
  /// Simplify every generated function before emitting it (constant
  /// tangents, algebraic identities, common math calls, merged adds, single
  /// use temporaries, dead locals; lib/Simplify). Off with
  /// -fplugin-arg-meshad-no-simplify: the code as the transformers build it.
  bool Simplify = true;
};

struct GenerationResult {
  /// True when the file asked for any derivative.
  bool HasRequests = false;
  std::vector<TextEdit> Edits;
  /// All generated functions, in emission order, for -fplugin-arg-meshad-dump.
  std::string Dump;
};

/// Runs the whole pipeline on a parsed translation unit. Problems are
/// reported into \p Diags; when it has errors the edits must not be applied.
GenerationResult generateDerivatives(clang::ASTContext &Ctx,
                                     DiagnosticSink &Diags,
                                     const GeneratorOptions &Opts);

/// Applies edits (any order; equal offsets keep their order) to \p Original.
std::string applyEdits(llvm::StringRef Original, std::vector<TextEdit> Edits);

} // namespace meshad

#endif // MESHAD_DRIVER_GENERATOR_H
