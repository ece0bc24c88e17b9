//===- unittests/OwnershipFixture.h - Ownership test fixture ---*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The fixture of the ownership tests: parses a CUDA snippet, lowers its
/// kernel `k` and checks the class of its array parameters.
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_UNITTESTS_OWNERSHIPFIXTURE_H
#define MESHAD_UNITTESTS_OWNERSHIPFIXTURE_H

#include "GPU/Ownership.h"
#include "Lower/ASTLowering.h"
#include "Support/Diagnostics.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Frontend/ASTUnit.h"
#include "clang/Tooling/Tooling.h"

#include "gtest/gtest.h"

#include <optional>

using namespace meshad;
using namespace meshad::ir;

namespace {

const char *ResourceDir = "-resource-dir=/usr/lib/llvm-22/lib/clang/22";

/// Finds the first function definition with a given name.
class FunctionFinder : public clang::RecursiveASTVisitor<FunctionFinder> {
public:
  explicit FunctionFinder(llvm::StringRef Name) : Name(Name) {}
  bool VisitFunctionDecl(clang::FunctionDecl *FD) {
    if (!Found && FD->getName() == Name && FD->doesThisDeclarationHaveABody())
      Found = FD;
    return true;
  }
  llvm::StringRef Name;
  clang::FunctionDecl *Found = nullptr;
};

/// Parses a CUDA snippet, lowers its kernel `k` and analyses it.
class OwnershipTest : public ::testing::Test {
protected:
  /// Lowers kernel `k` of \p Code; false (with a test failure) on errors.
  bool analyse(llvm::StringRef Code) {
    std::vector<std::string> Args = {"-xcuda",
                                     "--cuda-host-only",
                                     "--cuda-path=/usr/local/cuda",
                                     "-nocudalib",
                                     "-Wno-unknown-cuda-version",
                                     ResourceDir};
    AST = clang::tooling::buildASTFromCodeWithArgs(Code, Args, "input.cu");
    if (!AST || AST->getDiagnostics().hasErrorOccurred()) {
      ADD_FAILURE() << "snippet does not compile:\n" << Code.str();
      return false;
    }
    clang::ASTContext &Ctx = AST->getASTContext();
    Diags = std::make_unique<DiagnosticSink>(&Ctx.getSourceManager());
    Lowering = std::make_unique<ASTLowering>(Ctx, M, *Diags);
    FunctionFinder Finder("k");
    Finder.TraverseDecl(Ctx.getTranslationUnitDecl());
    if (!Finder.Found) {
      ADD_FAILURE() << "no kernel k";
      return false;
    }
    Kernel = Lowering->lower(Finder.Found);
    if (!Kernel) {
      ADD_FAILURE() << "kernel k does not lower";
      return false;
    }
    Analysis = std::make_unique<OwnershipAnalysis>(*Kernel);
    return true;
  }

  /// The result for parameter \p Name of the analysed kernel.
  OwnershipResult of(llvm::StringRef Name) const {
    for (const Var *P : Kernel->getParams())
      if (P->getName() == Name)
        return Analysis->classify(P);
    ADD_FAILURE() << "no parameter " << Name.str();
    return {};
  }

  /// Expects \p Name to have class \p C with every word of \p Words in the
  /// reason.
  void expect(llvm::StringRef Name, OwnershipClass C,
              std::initializer_list<const char *> Words) const {
    OwnershipResult R = of(Name);
    EXPECT_EQ(getOwnershipName(R.Class), std::string(getOwnershipName(C)))
        << Name.str() << ": " << R.Reason;
    for (const char *W : Words)
      EXPECT_NE(R.Reason.find(W), std::string::npos)
          << Name.str() << ": '" << R.Reason << "' lacks '" << W << "'";
    bool Exclusive = C == OwnershipClass::ThreadExclusive ||
                     C == OwnershipClass::TileExclusive;
    EXPECT_EQ(R.LaunchDims != 0, Exclusive) << Name.str();
    EXPECT_FALSE(R.Asserted) << Name.str();
  }
  void expectExclusive(llvm::StringRef Name,
                       std::initializer_list<const char *> Words = {}) const {
    expect(Name, OwnershipClass::ThreadExclusive, Words);
  }
  void expectShared(llvm::StringRef Name,
                    std::initializer_list<const char *> Words) const {
    expect(Name, OwnershipClass::Shared, Words);
  }
  /// Expects a thread-exclusive proof over \p Dims launch dimensions.
  void expectExclusiveIn(llvm::StringRef Name, unsigned Dims,
                         std::initializer_list<const char *> Words) const {
    expect(Name, OwnershipClass::ThreadExclusive, Words);
    EXPECT_EQ(of(Name).LaunchDims, Dims) << Name.str();
  }
  /// Expects tiles of \p Stride elements per thread, offsets [Lo, Hi].
  void expectTile(llvm::StringRef Name, long long Stride, long long Lo,
                  long long Hi,
                  std::initializer_list<const char *> Words) const {
    expect(Name, OwnershipClass::TileExclusive, Words);
    OwnershipResult R = of(Name);
    EXPECT_EQ(R.LaunchDims, 1u) << Name.str();
    EXPECT_EQ(R.TileStride, Stride) << Name.str();
    EXPECT_EQ(R.TileLo, Lo) << Name.str();
    EXPECT_EQ(R.TileHi, Hi) << Name.str();
  }
  /// Expects a uniform index, a literal one when \p Literal is set.
  void expectUniform(llvm::StringRef Name, std::optional<long long> Literal,
                     std::initializer_list<const char *> Words) const {
    expect(Name, OwnershipClass::Uniform, Words);
    OwnershipResult R = of(Name);
    EXPECT_EQ(R.HasLiteralIndex, Literal.has_value()) << Name.str();
    if (Literal) {
      EXPECT_EQ(R.UniformIndex, *Literal) << Name.str();
    }
  }

  Module M;
  std::unique_ptr<clang::ASTUnit> AST;
  std::unique_ptr<DiagnosticSink> Diags;
  std::unique_ptr<ASTLowering> Lowering;
  Function *Kernel = nullptr;
  std::unique_ptr<OwnershipAnalysis> Analysis;
};

} // namespace

#endif // MESHAD_UNITTESTS_OWNERSHIPFIXTURE_H
