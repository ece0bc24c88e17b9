//===- Driver/Placement.h - Where generated code goes ------------*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Computes byte offsets in the main file for generated text: prototypes go
/// at the start of the line after the primal's first declaration, definitions
/// after its definition (for a primal outside the main file, before the first
/// main-file declaration that follows it). Where code follows the
/// declaration on its last line, the text goes right after the declaration
/// instead, in the same scope (`namespace ns { double f(...) {...} }`).
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_DRIVER_PLACEMENT_H
#define MESHAD_DRIVER_PLACEMENT_H

#include "Emit/CudaEmitter.h"

#include "clang/Basic/SourceLocation.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace clang {
class ASTContext;
class Decl;
class FunctionDecl;
class SourceManager;
} // namespace clang

namespace meshad {

/// Offsets and line numbers in the main file of one translation unit.
class SourcePlacement : public SourceLines {
public:
  explicit SourcePlacement(clang::ASTContext &Ctx);

  /// Start of the line after the first declaration of \p FD (see above).
  unsigned prototypeOffset(const clang::FunctionDecl *FD) const;
  /// Start of the line after the definition of \p FD (see above).
  unsigned definitionOffset(const clang::FunctionDecl *FD) const;
  /// True when the definition of \p FD is written outside its namespace
  /// (`double ns::f(double x) {...}`): the definitions placed after it name
  /// the namespace too.
  static bool isDefinedOutOfLine(const clang::FunctionDecl *FD);
  /// Offset of a location in the main file, if it is in it (not in a macro).
  std::optional<unsigned> offsetOf(clang::SourceLocation Loc) const;
  /// Start of the line after the main file's `#include` that brings \p D
  /// in, directly or through other headers; nullopt for a declaration of
  /// the main file itself.
  std::optional<unsigned> includeOffset(const clang::Decl *D) const;
  /// 1-based line number of the line that holds \p Offset.
  unsigned lineAt(unsigned Offset) const;
  /// The main file's name as diagnostics spell it.
  std::string fileName() const;
  /// The presumed file and line of \p Loc (macro uses at their expansion),
  /// for `#line` directives in generated code.
  bool lookup(clang::SourceLocation Loc, std::string &File,
              unsigned &Line) const override;
  /// The main file's text.
  llvm::StringRef text() const { return Text; }

private:
  unsigned afterDecl(const clang::Decl *D) const;
  unsigned lineStartAfter(unsigned Offset) const;

  clang::ASTContext &Ctx;
  const clang::SourceManager &SM;
  llvm::StringRef Text;
};

} // namespace meshad

#endif // MESHAD_DRIVER_PLACEMENT_H
