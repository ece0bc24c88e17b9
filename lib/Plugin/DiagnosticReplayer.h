//===- Plugin/DiagnosticReplayer.h - Replaying diagnostics ------*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The generator reports into a DiagnosticSink during the nested planning
/// parse; the replayer turns those diagnostics into real clang diagnostics of
/// the outer compilation, so that errors fail it and `-verify` sees them.
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_PLUGIN_DIAGNOSTICREPLAYER_H
#define MESHAD_PLUGIN_DIAGNOSTICREPLAYER_H

#include "Driver/Generator.h"

#include "clang/Basic/SourceLocation.h"
#include "llvm/ADT/ArrayRef.h"

namespace clang {
class CompilerInstance;
} // namespace clang

namespace meshad {

/// Reports meshad diagnostics through a compiler instance's DiagnosticsEngine.
///
/// \code
///   DiagnosticReplayer Replayer(CI);
///   for (const Diagnostic &D : Outcome.Diags)
///     Replayer.report(D);
/// \endcode
class DiagnosticReplayer {
public:
  explicit DiagnosticReplayer(clang::CompilerInstance &CI) : CI(CI) {}

  /// The main file was replaced by \p NewMain, the original text
  /// \p Original with \p Edits applied: positions in the main file are mapped
  /// through the edits into the new file.
  void setEditedMainFile(clang::FileID NewMain, llvm::StringRef Original,
                         llvm::ArrayRef<TextEdit> Edits);

  void report(const Diagnostic &D);

private:
  /// The location of \p D in the outer compilation, invalid when unknown.
  clang::SourceLocation locate(const Diagnostic &D);
  clang::SourceLocation locateInEditedMainFile(const Diagnostic &D);

  clang::CompilerInstance &CI;
  clang::FileID EditedMain;
  llvm::StringRef Original;
  llvm::ArrayRef<TextEdit> Edits;
};

/// \p Diags in source order: each diagnostic with the notes that follow
/// it, sorted by line and column within its file (stable: diagnostics at one
/// position keep their order), the files in the order they are first named,
/// diagnostics without a position last.
///
/// \code
///   for (const Diagnostic &D : inSourceOrder(Outcome.Diags))
///     Replayer.report(D);
/// \endcode
std::vector<Diagnostic> inSourceOrder(llvm::ArrayRef<Diagnostic> Diags);

} // namespace meshad

#endif // MESHAD_PLUGIN_DIAGNOSTICREPLAYER_H
