//===- Driver/GenerateAction.cpp - Running the generator ------------------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//

#include "Driver/GenerateAction.h"

#include "clang/AST/ASTConsumer.h"
#include "clang/AST/ASTContext.h"
#include "clang/Basic/SourceManager.h"

using namespace meshad;

namespace {

/// Runs the generator once the whole translation unit is parsed.
class GenerateConsumer : public clang::ASTConsumer {
public:
  GenerateConsumer(const GeneratorOptions &Opts, GenerationOutcome &Out)
      : Opts(Opts), Out(Out) {}

  void HandleTranslationUnit(clang::ASTContext &Ctx) override {
    const clang::SourceManager &SM = Ctx.getSourceManager();
    Out.MainFileText = SM.getBufferData(SM.getMainFileID()).str();
    // After a fatal error the AST is cut short; the real compilation
    // reports the error itself.
    if (Ctx.getDiagnostics().hasFatalErrorOccurred())
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
};

} // namespace

std::unique_ptr<clang::ASTConsumer>
GenerateAction::CreateASTConsumer(clang::CompilerInstance &, llvm::StringRef) {
  return std::make_unique<GenerateConsumer>(Opts, Out);
}
