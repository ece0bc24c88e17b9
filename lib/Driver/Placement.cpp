//===- Driver/Placement.cpp - Where generated code goes -------------------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//

#include "Driver/Placement.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"

using namespace meshad;
using namespace clang;

SourcePlacement::SourcePlacement(ASTContext &Ctx)
    : Ctx(Ctx), SM(Ctx.getSourceManager()),
      Text(SM.getBufferData(SM.getMainFileID())) {}

std::optional<unsigned> SourcePlacement::offsetOf(SourceLocation Loc) const {
  if (Loc.isInvalid() || Loc.isMacroID())
    return std::nullopt;
  std::pair<FileID, unsigned> D = SM.getDecomposedLoc(Loc);
  if (D.first != SM.getMainFileID())
    return std::nullopt;
  return D.second;
}

unsigned SourcePlacement::lineStartAfter(unsigned Offset) const {
  size_t NL = Text.find('\n', Offset);
  return NL == StringRef::npos ? Text.size() : NL + 1;
}

std::optional<unsigned> SourcePlacement::includeOffset(const Decl *D) const {
  FileID File = SM.getFileID(SM.getExpansionLoc(D->getLocation()));
  SourceLocation IncludedAt;
  while (File.isValid() && File != SM.getMainFileID()) {
    IncludedAt = SM.getIncludeLoc(File);
    File = IncludedAt.isValid() ? SM.getFileID(IncludedAt) : FileID();
  }
  if (!File.isValid() || IncludedAt.isInvalid())
    return std::nullopt;
  std::optional<unsigned> Off = offsetOf(IncludedAt);
  return Off ? std::optional<unsigned>(lineStartAfter(*Off)) : std::nullopt;
}

unsigned SourcePlacement::lineAt(unsigned Offset) const {
  return Text.take_front(Offset).count('\n') + 1;
}

std::string SourcePlacement::fileName() const {
  PresumedLoc P = SM.getPresumedLoc(SM.getLocForStartOfFile(SM.getMainFileID()));
  return P.isValid() ? P.getFilename() : "";
}

bool SourcePlacement::lookup(SourceLocation Loc, std::string &File,
                             unsigned &Line) const {
  if (Loc.isInvalid())
    return false;
  PresumedLoc P = SM.getPresumedLoc(SM.getExpansionLoc(Loc));
  if (P.isInvalid())
    return false;
  File = P.getFilename();
  Line = P.getLine();
  return true;
}

/// The declaration as it stands in the source: the template for a function
/// template's pattern.
static const Decl *outermost(const FunctionDecl *FD) {
  // A functor's operator(): after its outermost class; a lambda's: after
  // the function it is written in (Lower/LowerFunctors.cpp).
  if (const auto *MD = dyn_cast<CXXMethodDecl>(FD)) {
    const CXXRecordDecl *RD = MD->getParent();
    if (RD->isLambda())
      if (const auto *Outer =
              dyn_cast_or_null<FunctionDecl>(RD->getParentFunctionOrMethod()))
        return outermost(Outer);
    while (const auto *Outer = dyn_cast<CXXRecordDecl>(RD->getDeclContext()))
      RD = Outer;
    if (const CXXRecordDecl *Pattern = RD->getTemplateInstantiationPattern())
      RD = Pattern;
    if (const ClassTemplateDecl *T = RD->getDescribedClassTemplate())
      return T;
    return RD;
  }
  if (const FunctionTemplateDecl *T = FD->getDescribedFunctionTemplate())
    return T;
  return FD;
}

unsigned SourcePlacement::afterDecl(const Decl *D) const {
  SourceLocation EndLoc = SM.getExpansionLoc(D->getEndLoc());
  if (std::optional<unsigned> Off = offsetOf(EndLoc)) {
    unsigned End =
        *Off + Lexer::MeasureTokenLength(EndLoc, SM, Ctx.getLangOpts());
    // A declaration without a body ends with the ';' after its last token.
    size_t Next = Text.find_first_not_of(" \t", End);
    if (Next != StringRef::npos && Text[Next] == ';')
      End = Next + 1;
    // The next line, unless code follows on this one ("} }" closing a
    // namespace too): then right after the declaration, in its scope.
    StringRef Rest = Text.substr(End).split('\n').first.trim();
    return Rest.empty() || Rest.starts_with("//") ? lineStartAfter(End) : End;
  }
  // Declared outside the main file: before the first main-file top-level
  // declaration that follows it.
  SourceLocation Loc = SM.getExpansionLoc(D->getBeginLoc());
  for (const Decl *Top : Ctx.getTranslationUnitDecl()->decls()) {
    SourceLocation TopLoc = SM.getExpansionLoc(Top->getBeginLoc());
    std::optional<unsigned> Off = offsetOf(TopLoc);
    if (Off && SM.isBeforeInTranslationUnit(Loc, TopLoc)) {
      size_t LineStart = Text.rfind('\n', *Off);
      return LineStart == StringRef::npos ? 0 : LineStart + 1;
    }
  }
  return Text.size();
}

unsigned SourcePlacement::prototypeOffset(const FunctionDecl *FD) const {
  const FunctionDecl *Pattern = FD->getTemplateInstantiationPattern();
  if (!Pattern)
    Pattern = FD;
  return afterDecl(outermost(Pattern->getFirstDecl()));
}

/// The definition of \p FD as written (its template pattern's), or its
/// declaration when it has none.
static const FunctionDecl *writtenDefinition(const FunctionDecl *FD) {
  const FunctionDecl *Pattern = FD->getTemplateInstantiationPattern();
  if (!Pattern)
    Pattern = FD;
  const FunctionDecl *Def = Pattern->getDefinition();
  return Def ? Def : Pattern;
}

unsigned SourcePlacement::definitionOffset(const FunctionDecl *FD) const {
  return afterDecl(outermost(writtenDefinition(FD)));
}

bool SourcePlacement::isDefinedOutOfLine(const FunctionDecl *FD) {
  const FunctionDecl *Def = writtenDefinition(FD);
  return !Def->getLexicalDeclContext()->getRedeclContext()->Equals(
      Def->getDeclContext()->getRedeclContext());
}
