//===- Driver/GenerateAction.h - Running the generator ----------*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// A syntax-only frontend action that parses a translation unit and runs
/// generateDerivatives on it. The plugin runs it in its nested planning parse,
/// meshad-gen through clang::tooling. Results outlive the action: they are
/// written into a GenerationOutcome owned by the caller.
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_DRIVER_GENERATEACTION_H
#define MESHAD_DRIVER_GENERATEACTION_H

#include "Driver/Generator.h"

#include "clang/Frontend/FrontendAction.h"

namespace meshad {

class FatalErrorWatcher;

/// What one generation run produced.
struct GenerationOutcome {
  /// False when the translation unit could not be parsed completely, so the
  /// generator did not run (a fatal error such as a missing include).
  bool Ran = false;
  GenerationResult Result;
  /// meshad's diagnostics, with positions in the parsed files.
  std::vector<Diagnostic> Diags;
  unsigned NumErrors = 0;
  /// The main file's text as it was parsed.
  std::string MainFileText;

  bool hasErrors() const { return NumErrors != 0; }
};

/// Parses the input and runs generateDerivatives on the translation unit.
///
/// \code
///   GenerationOutcome Out;
///   GenerateAction Action(Opts, Out);
///   Nested.ExecuteAction(Action);
/// \endcode
class GenerateAction : public clang::ASTFrontendAction {
public:
  GenerateAction(const GeneratorOptions &Opts, GenerationOutcome &Out);
  ~GenerateAction() override;

protected:
  bool BeginSourceFileAction(clang::CompilerInstance &CI) override;
  void EndSourceFileAction() override;
  std::unique_ptr<clang::ASTConsumer>
  CreateASTConsumer(clang::CompilerInstance &CI,
                    llvm::StringRef InFile) override;

private:
  GeneratorOptions Opts;
  GenerationOutcome &Out;
  /// Set when clang reported a fatal error: the AST is then incomplete.
  bool SawFatalError = false;
  /// Stands in for the diagnostic consumer of WatchedDiags while the action
  /// runs.
  std::unique_ptr<FatalErrorWatcher> Watcher;
  clang::DiagnosticsEngine *WatchedDiags = nullptr;

  void stopWatching();
};

} // namespace meshad

#endif // MESHAD_DRIVER_GENERATEACTION_H
