//===- tools/meshad-gen/meshad-gen.cpp - Stand-alone generator ------------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// meshad-gen writes the augmented source of a file that requests
/// derivatives, for compilers without the plugin (nvcc):
///
/// \code
///   meshad-gen kernel.cu -o kernel.gen.cu -- -I include -std=c++17
///   nvcc -c kernel.gen.cu -I include
/// \endcode
///
/// The input is parsed by clang (CUDA files host-side only) with
/// MESHAD_PLANNING=1; clang's own diagnostics of that parse are hidden unless
/// --show-clang-diagnostics is given, because the file does not compile
/// before the generated code is added (the request calls lack their
/// generated handle). Only a parse that stops short (a fatal error such as a
/// missing include) is an error. meshad's diagnostics are printed as
/// `file:line:col: error: message` and make it exit with 1.
///
//===----------------------------------------------------------------------===//

#include "Driver/GenerateAction.h"

#include "clang/Basic/Diagnostic.h"
#include "clang/Basic/DiagnosticOptions.h"
#include "clang/Frontend/TextDiagnosticPrinter.h"
#include "clang/Tooling/CompilationDatabase.h"
#include "clang/Tooling/Tooling.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>

using namespace meshad;

#ifndef MESHAD_CLANG_RESOURCE_DIR
#define MESHAD_CLANG_RESOURCE_DIR ""
#endif
#ifndef MESHAD_CUDA_PATH
#define MESHAD_CUDA_PATH "/usr/local/cuda"
#endif

namespace {

/// The parsed command line.
struct ToolOptions {
  std::string Input;
  std::string Output = "-";
  bool ShowClangDiagnostics = false;
  GeneratorOptions Generator;
  std::vector<std::string> ClangArgs;
};

const char *const Usage =
    "usage: meshad-gen <input> [-o <output>] [--line-directives | "
    "--no-line-directives]\n"
    "                  [--verify] [--show-clang-diagnostics] "
    "[-- <clang arguments>]\n"
    "Writes <input> with the derivatives it requests (stdout by default).\n"
    "  -o <output>               output file ('-' for stdout)\n"
    "  --line-directives         wrap generated code in #line directives\n"
    "  --no-line-directives      do not (the default)\n"
    "  --remarks                 one remark per adjoint store of a kernel\n"
    "  --atomics=all             atomicAdd on every shared adjoint store\n"
    "                            (ignore the ownership analysis)\n"
    "  --uniform-sums=block      sum uniform adds of reverse loops per block,\n"
    "                            not per warp (the default)\n"
    "  --verify                  check the generated IR after each pass\n"
    "  --ownership-crosscheck    warn where the ownership of a gradient\n"
    "                            kernel's adjoint array differs between the\n"
    "                            primal and the finished function (a\n"
    "                            development check; the output is unchanged)\n"
    "  --no-simplify             do not simplify the generated code\n"
    "  --show-clang-diagnostics  print clang's diagnostics of the parse\n"
    "  -- <clang arguments>      e.g. -I <dir> -D<macro> -std=c++17 -x cuda\n";

/// Parses argv; prints the problem and returns nullopt on a bad command line.
std::optional<ToolOptions> parseCommandLine(int Argc, const char **Argv) {
  ToolOptions Opts;
  Opts.Generator.LineDirectives = false;
  for (int I = 1; I < Argc; ++I) {
    llvm::StringRef Arg = Argv[I];
    if (Arg == "--") {
      Opts.ClangArgs.assign(Argv + I + 1, Argv + Argc);
      break;
    }
    if (Arg == "-h" || Arg == "--help") {
      llvm::outs() << Usage;
      std::exit(0);
    }
    if (Arg == "-o" && I + 1 < Argc)
      Opts.Output = Argv[++I];
    else if (Arg.starts_with("-o") && Arg.size() > 2)
      Opts.Output = Arg.drop_front(2).str();
    else if (Arg == "--line-directives")
      Opts.Generator.LineDirectives = true;
    else if (Arg == "--no-line-directives")
      Opts.Generator.LineDirectives = false;
    else if (Arg == "--remarks")
      Opts.Generator.Remarks = true;
    else if (Arg == "--atomics=all")
      Opts.Generator.ForceAtomics = true;
    else if (Arg == "--atomics=auto")
      Opts.Generator.ForceAtomics = false;
    else if (Arg == "--uniform-sums=warp")
      Opts.Generator.UniformSumsPerWarp = true;
    else if (Arg == "--uniform-sums=block")
      Opts.Generator.UniformSumsPerWarp = false;
    else if (Arg == "--verify")
      Opts.Generator.Verify = true;
    else if (Arg == "--ownership-crosscheck")
      Opts.Generator.OwnershipCrossCheck = true;
    else if (Arg == "--no-simplify")
      Opts.Generator.Simplify = false;
    else if (Arg == "--show-clang-diagnostics")
      Opts.ShowClangDiagnostics = true;
    else if (!Arg.starts_with("-") && Opts.Input.empty())
      Opts.Input = Arg.str();
    else {
      llvm::errs() << "meshad-gen: error: unexpected argument '" << Arg
                   << "'\n"
                   << Usage;
      return std::nullopt;
    }
  }
  if (Opts.Input.empty()) {
    llvm::errs() << "meshad-gen: error: no input file\n" << Usage;
    return std::nullopt;
  }
  return Opts;
}

bool isCuda(const ToolOptions &Opts) {
  if (llvm::StringRef(Opts.Input).ends_with(".cu"))
    return true;
  for (size_t I = 0; I < Opts.ClangArgs.size(); ++I) {
    llvm::StringRef Arg = Opts.ClangArgs[I];
    if (Arg == "-xcuda" ||
        (Arg == "-x" && I + 1 < Opts.ClangArgs.size() &&
         Opts.ClangArgs[I + 1] == "cuda"))
      return true;
  }
  return false;
}

/// The clang command line of the planning parse: ours, then the user's.
std::vector<std::string> buildClangArgs(const ToolOptions &Opts) {
  std::vector<std::string> Args = {"-DMESHAD_PLANNING=1"};
  if (llvm::StringRef(MESHAD_CLANG_RESOURCE_DIR).size())
    Args.push_back("-resource-dir=" MESHAD_CLANG_RESOURCE_DIR);
  if (isCuda(Opts)) {
    Args.insert(Args.end(),
                {"--cuda-host-only", "--cuda-path=" MESHAD_CUDA_PATH,
                 "-Wno-unknown-cuda-version", "-nocudalib"});
  }
  Args.insert(Args.end(), Opts.ClangArgs.begin(), Opts.ClangArgs.end());
  // Errors are expected before the generated code exists: parse on.
  Args.insert(Args.end(), {"-ferror-limit=0", "-Wno-fatal-errors"});
  return Args;
}

/// Drops clang's diagnostics. (Not counting them also keeps the compiler
/// from printing "N errors generated".)
class SilentDiagConsumer : public clang::DiagnosticConsumer {
  void HandleDiagnostic(clang::DiagnosticsEngine::Level,
                        const clang::Diagnostic &) override {}
};

/// Creates GenerateActions that all report into one outcome.
class GenerateActionFactory : public clang::tooling::FrontendActionFactory {
public:
  GenerateActionFactory(const GeneratorOptions &Opts, GenerationOutcome &Out)
      : Opts(Opts), Out(Out) {}
  std::unique_ptr<clang::FrontendAction> create() override {
    return std::make_unique<GenerateAction>(Opts, Out);
  }

private:
  const GeneratorOptions &Opts;
  GenerationOutcome &Out;
};

const char *getLevelName(Diagnostic::Level L) {
  switch (L) {
  case Diagnostic::Level::Error:
    return "error";
  case Diagnostic::Level::Warning:
    return "warning";
  case Diagnostic::Level::Remark:
    return "remark";
  case Diagnostic::Level::Note:
    return "note";
  }
  return "error";
}

void printDiagnostic(const Diagnostic &D) {
  if (D.File.empty())
    llvm::errs() << "meshad-gen";
  else
    llvm::errs() << D.File << ':' << D.Line << ':' << D.Column;
  llvm::errs() << ": " << getLevelName(D.Severity) << ": " << D.Message
               << '\n';
}

/// Writes \p Text to \p Path ("-": stdout). Returns false on failure.
bool writeOutput(llvm::StringRef Path, llvm::StringRef Text) {
  std::error_code EC;
  llvm::raw_fd_ostream OS(Path, EC);
  if (!EC) {
    OS << Text;
    OS.close();
    EC = OS.error();
  }
  if (EC)
    llvm::errs() << "meshad-gen: error: cannot write '" << Path
                 << "': " << EC.message() << '\n';
  return !EC;
}

/// Parses the input and runs the generator.
GenerationOutcome generate(const ToolOptions &Opts,
                           clang::DiagnosticConsumer &ClangDiags) {
  clang::tooling::FixedCompilationDatabase Db(".", buildClangArgs(Opts));
  clang::tooling::ClangTool Tool(Db, {Opts.Input});
  Tool.setDiagnosticConsumer(&ClangDiags);
  Tool.setPrintErrorMessage(false);
  GenerationOutcome Out;
  GenerateActionFactory Factory(Opts.Generator, Out);
  Tool.run(&Factory);
  return Out;
}

} // namespace

int main(int Argc, const char **Argv) {
  std::optional<ToolOptions> Opts = parseCommandLine(Argc, Argv);
  if (!Opts)
    return 2;
  clang::DiagnosticOptions DiagOpts;
  std::unique_ptr<clang::DiagnosticConsumer> ClangDiags;
  if (Opts->ShowClangDiagnostics)
    ClangDiags =
        std::make_unique<clang::TextDiagnosticPrinter>(llvm::errs(), DiagOpts);
  else
    ClangDiags = std::make_unique<SilentDiagConsumer>();
  GenerationOutcome Out = generate(*Opts, *ClangDiags);
  if (!Out.Ran) {
    llvm::errs() << "meshad-gen: error: could not parse '" << Opts->Input
                 << "'";
    if (!Opts->ShowClangDiagnostics)
      llvm::errs() << " (see why with --show-clang-diagnostics)";
    llvm::errs() << '\n';
    return 1;
  }
  for (const Diagnostic &D : Out.Diags)
    printDiagnostic(D);
  if (Out.hasErrors())
    return 1;
  return writeOutput(Opts->Output,
                     applyEdits(Out.MainFileText, Out.Result.Edits))
             ? 0
             : 1;
}
