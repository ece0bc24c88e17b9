//===- Driver/GenerateAction.cpp - Running the generator ------------------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//

#include "Driver/GenerateAction.h"

#include "clang/AST/ASTConsumer.h"
#include "clang/AST/ASTContext.h"
#include "clang/Basic/Diagnostic.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Frontend/CompilerInstance.h"

using namespace meshad;

/// Passes every diagnostic on to the consumer it replaces and notes fatal
/// errors. (DiagnosticsEngine::hasFatalErrorOccurred() is no longer set when
/// the translation unit is complete, e.g. after a missing include.)
class meshad::FatalErrorWatcher : public clang::DiagnosticConsumer {
public:
  FatalErrorWatcher(clang::DiagnosticConsumer &Target,
                    std::unique_ptr<clang::DiagnosticConsumer> OwnedTarget,
                    bool &SawFatalError)
      : Target(Target), OwnedTarget(std::move(OwnedTarget)),
        SawFatalError(SawFatalError) {}

  void BeginSourceFile(const clang::LangOptions &LangOpts,
                       const clang::Preprocessor *PP) override {
    Target.BeginSourceFile(LangOpts, PP);
  }
  void EndSourceFile() override { Target.EndSourceFile(); }
  void finish() override { Target.finish(); }
  bool IncludeInDiagnosticCounts() const override {
    return Target.IncludeInDiagnosticCounts();
  }
  void HandleDiagnostic(clang::DiagnosticsEngine::Level Level,
                        const clang::Diagnostic &Info) override {
    if (Level == clang::DiagnosticsEngine::Fatal)
      SawFatalError = true;
    Target.HandleDiagnostic(Level, Info);
    NumErrors = Target.getNumErrors();
    NumWarnings = Target.getNumWarnings();
  }

  /// Gives the replaced consumer back to \p Diags.
  void restore(clang::DiagnosticsEngine &Diags) {
    if (OwnedTarget)
      Diags.setClient(OwnedTarget.release(), /*ShouldOwnClient=*/true);
    else
      Diags.setClient(&Target, /*ShouldOwnClient=*/false);
  }

private:
  clang::DiagnosticConsumer &Target;
  std::unique_ptr<clang::DiagnosticConsumer> OwnedTarget;
  bool &SawFatalError;
};

namespace {

/// Runs the generator once the whole translation unit is parsed.
class GenerateConsumer : public clang::ASTConsumer {
public:
  GenerateConsumer(const GeneratorOptions &Opts, GenerationOutcome &Out,
                   const bool &SawFatalError)
      : Opts(Opts), Out(Out), SawFatalError(SawFatalError) {}

  void HandleTranslationUnit(clang::ASTContext &Ctx) override {
    const clang::SourceManager &SM = Ctx.getSourceManager();
    Out.MainFileText = SM.getBufferData(SM.getMainFileID()).str();
    // After a fatal error the AST is cut short; the real compilation
    // reports the error itself.
    if (SawFatalError)
      return;
    DiagnosticSink Sink(&SM);
    Out.Result = generateDerivatives(Ctx, Sink, Opts);
    Out.Diags = Sink.getDiagnostics();
    Out.NumErrors = Sink.getNumErrors();
    Out.Ran = true;
  }

private:
  const GeneratorOptions &Opts;
  GenerationOutcome &Out;
  const bool &SawFatalError;
};

} // namespace

GenerateAction::GenerateAction(const GeneratorOptions &Opts,
                               GenerationOutcome &Out)
    : Opts(Opts), Out(Out) {}

// A source file that failed to begin is not ended: restore here then.
GenerateAction::~GenerateAction() { stopWatching(); }

bool GenerateAction::BeginSourceFileAction(clang::CompilerInstance &CI) {
  clang::DiagnosticsEngine &Diags = CI.getDiagnostics();
  clang::DiagnosticConsumer *Client = Diags.getClient();
  if (Client) {
    Watcher = std::make_unique<FatalErrorWatcher>(*Client, Diags.takeClient(),
                                                  SawFatalError);
    Diags.setClient(Watcher.get(), /*ShouldOwnClient=*/false);
    WatchedDiags = &Diags;
  }
  return true;
}

void GenerateAction::EndSourceFileAction() { stopWatching(); }

void GenerateAction::stopWatching() {
  if (Watcher)
    Watcher->restore(*WatchedDiags);
  Watcher.reset();
  WatchedDiags = nullptr;
}

std::unique_ptr<clang::ASTConsumer>
GenerateAction::CreateASTConsumer(clang::CompilerInstance &, llvm::StringRef) {
  return std::make_unique<GenerateConsumer>(Opts, Out, SawFatalError);
}
