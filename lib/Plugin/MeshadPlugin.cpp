//===- Plugin/MeshadPlugin.cpp - The meshad clang plugin ------------------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// libmeshad.so: `clang++ -fplugin=libmeshad.so` runs this action before the
/// main action of every compilation (for CUDA: the device and the host one).
/// When the main file asks for derivatives, a nested planning parse runs the
/// generator; its diagnostics are re-reported here, and the main file's
/// buffer is replaced by the augmented text before the preprocessor enters
/// it, so the real parse compiles the generated code.
///
//===----------------------------------------------------------------------===//

#include "Plugin/DiagnosticReplayer.h"
#include "Plugin/PlanningParse.h"
#include "Plugin/PluginOptions.h"

#include "clang/AST/ASTConsumer.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendPluginRegistry.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace meshad;

/// Whether the plugin has anything to do for the compilation of \p CI:
/// one source file (not a header, module map, IR or stdin) of C, C++, CUDA or
/// HIP.
static bool isCandidate(const clang::CompilerInstance &CI) {
  const clang::FrontendOptions &Frontend = CI.getFrontendOpts();
  if (Frontend.Inputs.size() != 1 || CI.getLangOpts().isCompilingModule())
    return false;
  const clang::FrontendInputFile &Input = Frontend.Inputs.front();
  clang::InputKind Kind = Input.getKind();
  if (!Input.isFile() || Input.getFile() == "-" || Kind.isHeader() ||
      Kind.getFormat() != clang::InputKind::Source)
    return false;
  switch (Kind.getLanguage()) {
  case clang::Language::C:
  case clang::Language::CXX:
  case clang::Language::CUDA:
  case clang::Language::HIP:
    return true;
  default:
    return false;
  }
}

/// Replaces the main file's text by \p NewText. The preprocessor has not
/// entered the main file yet; it gets a fresh FileID because the old one's
/// location range has the old size. Returns the new FileID, invalid when the
/// main file is not a file.
static clang::FileID replaceMainFile(clang::SourceManager &SM,
                                     llvm::StringRef NewText) {
  clang::FileID OldMain = SM.getMainFileID();
  clang::OptionalFileEntryRef File = SM.getFileEntryRefForID(OldMain);
  if (!File)
    return clang::FileID();
  const clang::SrcMgr::FileInfo &Info = SM.getSLocEntry(OldMain).getFile();
  SM.overrideFileContents(
      *File, llvm::MemoryBuffer::getMemBufferCopy(NewText, File->getName()));
  // The content cache is shared with the new FileID: forget the old lines.
  Info.getContentCache().SourceLineCache = clang::SrcMgr::LineOffsetMapping();
  clang::FileID NewMain = SM.createFileID(*File, clang::SourceLocation(),
                                          Info.getFileCharacteristic());
  SM.setMainFileID(NewMain);
  return NewMain;
}

namespace {

/// Reports meshad's diagnostics (warnings, remarks) about an edited main
/// file at the end of the translation unit: by then the preprocessor has seen
/// the injected #line directives, so the locations print with the user's
/// original line numbers.
class ReplayAtEndConsumer : public clang::ASTConsumer {
public:
  ReplayAtEndConsumer(clang::CompilerInstance &CI, clang::FileID NewMain,
                      std::string Original, std::vector<TextEdit> Edits,
                      std::vector<Diagnostic> Diags)
      : CI(CI), NewMain(NewMain), Original(std::move(Original)),
        Edits(std::move(Edits)), Diags(std::move(Diags)) {}

  void HandleTranslationUnit(clang::ASTContext &) override {
    DiagnosticReplayer Replayer(CI);
    Replayer.setEditedMainFile(NewMain, Original, Edits);
    for (const Diagnostic &D : Diags)
      Replayer.report(D);
  }

private:
  clang::CompilerInstance &CI;
  clang::FileID NewMain;
  std::string Original;
  std::vector<TextEdit> Edits;
  std::vector<Diagnostic> Diags;
};

/// The meshad plugin action.
class MeshadAction : public clang::PluginASTAction {
public:
  ActionType getActionType() override { return AddBeforeMainAction; }

  bool ParseArgs(const clang::CompilerInstance &CI,
                 const std::vector<std::string> &Args) override {
    if (isInPlanningParse())
      return false;
    std::string Unknown;
    if (!Opts.parse(Args, Unknown)) {
      clang::DiagnosticsEngine &Diags = CI.getDiagnostics();
      Diags.Report(Diags.getCustomDiagID(
          clang::DiagnosticsEngine::Error,
          "meshad: unknown plugin argument '%0'; try "
          "-fplugin-arg-meshad-help"))
          << Unknown;
      return false;
    }
    // -Rpass=meshad (any pattern that matches "meshad") asks for remarks.
    if (CI.getCodeGenOpts().OptimizationRemark.patternMatches("meshad"))
      Opts.Remarks = Opts.Generator.Remarks = true;
    if (Opts.Help && isHostSide(CI))
      llvm::errs() << PluginOptions::getUsage();
    return true;
  }

protected:
  std::unique_ptr<clang::ASTConsumer>
  CreateASTConsumer(clang::CompilerInstance &CI, llvm::StringRef) override {
    if (!isInPlanningParse() && isCandidate(CI) &&
        CI.getSourceManager().getMainFileID().isValid())
      if (std::unique_ptr<clang::ASTConsumer> Replay = run(CI))
        return Replay;
    return std::make_unique<clang::ASTConsumer>();
  }

private:
  /// CUDA compiles each file twice; output meant for the user is printed by
  /// the host side only.
  static bool isHostSide(const clang::CompilerInstance &CI) {
    return !CI.getLangOpts().CUDAIsDevice;
  }

  /// Generates and injects; returns a consumer that reports diagnostics
  /// at the end when they concern an edited main file.
  std::unique_ptr<clang::ASTConsumer> run(clang::CompilerInstance &CI);
  void writeDumpFile(clang::CompilerInstance &CI, llvm::StringRef Text);

  PluginOptions Opts;
};

std::unique_ptr<clang::ASTConsumer>
MeshadAction::run(clang::CompilerInstance &CI) {
  clang::SourceManager &SM = CI.getSourceManager();
  std::string Original = SM.getBufferData(SM.getMainFileID()).str();
  if (!llvm::StringRef(Original).contains("meshad")) {
    writeDumpFile(CI, Original);
    return nullptr;
  }
  GenerationOutcome Out = runPlanningParse(CI, Opts.Generator);
  if (Opts.Dump && isHostSide(CI))
    llvm::errs() << Out.Result.Dump;
  std::string Compiled = Original;
  if (Out.Ran && !Out.hasErrors() && !Out.Result.Edits.empty()) {
    std::string NewText = applyEdits(Original, Out.Result.Edits);
    clang::FileID NewMain = replaceMainFile(SM, NewText);
    if (NewMain.isValid()) {
      writeDumpFile(CI, NewText);
      if (Out.Diags.empty())
        return nullptr;
      // No errors: warnings and remarks wait for the #line directives.
      return std::make_unique<ReplayAtEndConsumer>(
          CI, NewMain, std::move(Original), Out.Result.Edits, Out.Diags);
    }
  }
  // Errors (and what comes with them) in source order, wherever the
  // generator found them.
  DiagnosticReplayer Replayer(CI);
  for (const Diagnostic &D :
       Out.hasErrors() ? inSourceOrder(Out.Diags) : Out.Diags)
    Replayer.report(D);
  // With meshad errors nothing was generated, so the requests fall back to
  // the header's "needs the meshad plugin" overloads: their errors (and
  // everything that follows from them) would only hide the real cause. The
  // compilation fails on meshad's errors alone.
  if (Out.hasErrors())
    CI.getDiagnostics().setSuppressAllDiagnostics(true);
  writeDumpFile(CI, Compiled);
  return nullptr;
}

void MeshadAction::writeDumpFile(clang::CompilerInstance &CI,
                                 llvm::StringRef Text) {
  if (Opts.DumpDir.empty())
    return;
  clang::SourceManager &SM = CI.getSourceManager();
  clang::OptionalFileEntryRef Main =
      SM.getFileEntryRefForID(SM.getMainFileID());
  if (!Main)
    return;
  llvm::SmallString<256> Path(Opts.DumpDir);
  llvm::sys::path::append(Path, llvm::sys::path::filename(Main->getName()));
  std::error_code EC = llvm::sys::fs::create_directories(Opts.DumpDir);
  if (!EC)
    EC = llvm::errorToErrorCode(llvm::writeToOutput(
        Path, [&](llvm::raw_ostream &OS) {
          OS << Text;
          return llvm::Error::success();
        }));
  if (!EC)
    return;
  clang::DiagnosticsEngine &Diags = CI.getDiagnostics();
  Diags.Report(Diags.getCustomDiagID(clang::DiagnosticsEngine::Error,
                                     "meshad: cannot write '%0': %1"))
      << Path.str() << EC.message();
}

} // namespace

static clang::FrontendPluginRegistry::Add<MeshadAction>
    X("meshad", "source-to-source automatic differentiation of CUDA C++");
