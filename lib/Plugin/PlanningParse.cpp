//===- Plugin/PlanningParse.cpp - The nested planning parse ---------------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//

#include "Plugin/PlanningParse.h"

#include "clang/Basic/Diagnostic.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/CompilerInvocation.h"
#include "clang/Lex/PreprocessorOptions.h"

using namespace meshad;

static thread_local bool InPlanningParse = false;

bool meshad::isInPlanningParse() { return InPlanningParse; }

namespace {

/// Sets the re-entry flag for its lifetime.
class PlanningScope {
public:
  PlanningScope() { InPlanningParse = true; }
  ~PlanningScope() { InPlanningParse = false; }
};

} // namespace

/// A copy of \p Original that only parses: no outputs, no -verify, no
/// dependency files, no statistics, no error limit, and MESHAD_PLANNING=1.
static std::shared_ptr<clang::CompilerInvocation>
makePlanningInvocation(const clang::CompilerInvocation &Original) {
  auto Inv = std::make_shared<clang::CompilerInvocation>(Original);
  clang::FrontendOptions &Frontend = Inv->getFrontendOpts();
  Frontend.ProgramAction = clang::frontend::ParseSyntaxOnly;
  Frontend.OutputFile.clear();
  Frontend.CodeCompletionAt = clang::ParsedSourceLocation();
  Frontend.ShowStats = false;
  Frontend.StatsFile.clear();
  Frontend.DisableFree = false;
  clang::DiagnosticOptions &Diag = Inv->getDiagnosticOpts();
  Diag.VerifyDiagnostics = false;
  Diag.DiagnosticSerializationFile.clear();
  Diag.DiagnosticLogFile.clear();
  // Planning-parse errors are expected (requests lack their generated
  // handle) and must not stop the parse.
  Diag.ErrorLimit = 0;
  Diag.Warnings.push_back("no-fatal-errors");
  Inv->getDependencyOutputOpts() = clang::DependencyOutputOptions();
  clang::PreprocessorOptions &PP = Inv->getPreprocessorOpts();
  // Remapped buffers belong to the real compilation.
  PP.RetainRemappedFileBuffers = true;
  PP.addMacroDef("MESHAD_PLANNING=1");
  return Inv;
}

GenerationOutcome meshad::runPlanningParse(clang::CompilerInstance &CI,
                                           const GeneratorOptions &Opts) {
  GenerationOutcome Out;
  if (InPlanningParse)
    return Out;
  PlanningScope Scope;
  clang::CompilerInstance Nested(makePlanningInvocation(CI.getInvocation()),
                                 CI.getPCHContainerOperations());
  Nested.setVirtualFileSystem(CI.getFileManager().getVirtualFileSystemPtr());
  Nested.setFileManager(CI.getFileManagerPtr());
  // User errors are reported by the real parse.
  Nested.createDiagnostics(new clang::IgnoringDiagConsumer(),
                           /*ShouldOwnClient=*/true);
  GenerateAction Action(Opts, Out);
  Nested.ExecuteAction(Action);
  return Out;
}
