//===- unittests/ComposeFixture.h - Modes over lowered source --*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// A fixture that lowers a C++ snippet into the meshad IR, lets a test run
/// the mode transformers over it in any order (reverse over forward, forward
/// over forward), verifies every generated function, then compiles the
/// snippet with the emitted derivatives and a test's main() (which checks
/// them against central differences with test/Inputs/NumericCheck.h) and
/// runs it, before and after the simplifier.
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_UNITTESTS_COMPOSEFIXTURE_H
#define MESHAD_UNITTESTS_COMPOSEFIXTURE_H

#include "Emit/CudaEmitter.h"
#include "IR/Verifier.h"
#include "Lower/ASTLowering.h"
#include "Simplify/Simplifier.h"
#include "AD/Forward/ForwardMode.h"
#include "AD/Reverse/ReverseMode.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Frontend/ASTUnit.h"
#include "clang/Tooling/Tooling.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Program.h"

#include "gtest/gtest.h"

#include <fstream>
#include <sstream>

namespace meshad {
namespace test {

class ComposeFixture : public ::testing::Test {
protected:
  ComposeFixture() : Forward(M, *Diags, Derived), Reverse(M, *Diags, Derived) {}

  /// Parses \p Code (C++17) and lowers its function \p Name.
  ir::Function *lower(const std::string &Code, llvm::StringRef Name) {
    Source = Code;
    std::vector<std::string> Args = {
        "-std=c++17", "-resource-dir=/usr/lib/llvm-22/lib/clang/22"};
    AST = clang::tooling::buildASTFromCodeWithArgs(Code, Args, "input.cc");
    if (!AST || AST->getDiagnostics().hasErrorOccurred()) {
      ADD_FAILURE() << "snippet does not compile";
      return nullptr;
    }
    clang::ASTContext &Ctx = AST->getASTContext();
    *Diags = DiagnosticSink(&Ctx.getSourceManager());
    Lowering = std::make_unique<ASTLowering>(Ctx, M, *Diags);
    Finder F(Name);
    F.TraverseDecl(Ctx.getTranslationUnitDecl());
    if (!F.Found) {
      ADD_FAILURE() << "no function " << Name.str();
      return nullptr;
    }
    return Lowering->lower(F.Found);
  }

  /// Every generated function passes the IR verifier.
  void expectWellFormed() {
    for (const DerivedFunction &E : Derived.entries()) {
      std::string Errors;
      EXPECT_TRUE(
          ir::verifyFunction(*E.Derived, ir::VerifyStage::Lowered, Errors))
          << E.Derived->getName() << ": " << Errors;
    }
  }

  /// Simplifies every generated function, as the generator does before
  /// emitting them, and verifies them again.
  void simplifyAll() {
    Simplifier Simplify(M);
    for (const DerivedFunction &E : Derived.entries())
      Simplify.run(*E.Derived);
    expectWellFormed();
  }

  /// Every generated function (prototypes first).
  std::string emitted() const {
    std::string Text;
    for (const DerivedFunction &E : Derived.entries())
      Text += CudaEmitter::emitPrototype(*E.Derived);
    for (const DerivedFunction &E : Derived.entries())
      Text += CudaEmitter::emitDefinition(*E.Derived);
    return Text;
  }

  /// Compiles the snippet, the generated code and \p Main with clang++ and
  /// runs it; EXPECTs a clean compile and an exit status of 0 (every
  /// numeric check passed). Returns the program's output.
  std::string compileAndRun(const std::string &Main) {
    llvm::SmallString<128> Dir;
    if (llvm::sys::fs::createUniqueDirectory("meshad-compose", Dir)) {
      ADD_FAILURE() << "no scratch directory";
      return "";
    }
    std::string Cpp = (Dir + "/t.cpp").str(), Exe = (Dir + "/t").str();
    std::string Log = (Dir + "/log.txt").str();
    std::ofstream(Cpp) << "#include <meshad/Differentiator.h>\n"
                       << "#include \"NumericCheck.h\"\n"
                       << Source << "\n"
                       << emitted() << "\n"
                       << Main;
    std::string Inc = std::string("-I") + MESHAD_SOURCE_DIR + "/include";
    std::string Inputs = std::string("-I") + MESHAD_SOURCE_DIR + "/test/Inputs";
    std::optional<llvm::StringRef> Redirects[] = {std::nullopt, Log, Log};
    int Rc = llvm::sys::ExecuteAndWait(MESHAD_CLANGXX,
                                       {MESHAD_CLANGXX, "-x", "c++",
                                        "-std=c++20", "-O1", "-pthread", Inc,
                                        Inputs, Cpp, "-o", Exe},
                                       std::nullopt, Redirects);
    EXPECT_EQ(Rc, 0) << "generated code does not compile:\n"
                     << readFile(Log) << "\n"
                     << emitted();
    if (Rc != 0)
      return "";
    Rc = llvm::sys::ExecuteAndWait(Exe, {Exe}, std::nullopt, Redirects);
    std::string Out = readFile(Log);
    EXPECT_EQ(Rc, 0) << Out << "\n" << emitted();
    if (std::getenv("MESHAD_COMPOSE_DUMP")) // To read what was checked.
      llvm::errs() << emitted() << Out;
    llvm::sys::fs::remove_directories(Dir);
    return Out;
  }

  static std::string readFile(const std::string &Path) {
    std::ifstream In(Path);
    std::stringstream S;
    S << In.rdbuf();
    return S.str();
  }

  ir::Module M;
  std::unique_ptr<DiagnosticSink> Diags = std::make_unique<DiagnosticSink>();
  DerivedFunctionSet Derived;
  ForwardModeTransformer Forward;
  ReverseModeTransformer Reverse;

private:
  struct Finder : clang::RecursiveASTVisitor<Finder> {
    explicit Finder(llvm::StringRef Name) : Name(Name) {}
    bool VisitFunctionDecl(clang::FunctionDecl *FD) {
      if (!Found && FD->getName() == Name && FD->doesThisDeclarationHaveABody())
        Found = FD;
      return true;
    }
    llvm::StringRef Name;
    clang::FunctionDecl *Found = nullptr;
  };

  std::string Source;
  std::unique_ptr<clang::ASTUnit> AST;
  std::unique_ptr<ASTLowering> Lowering;
};

} // namespace test
} // namespace meshad

#endif // MESHAD_UNITTESTS_COMPOSEFIXTURE_H
