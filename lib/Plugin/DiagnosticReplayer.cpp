//===- Plugin/DiagnosticReplayer.cpp - meshad diagnostics in clang --------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//

#include "Plugin/DiagnosticReplayer.h"
#include "Driver/TextEdits.h"

#include "clang/Basic/Diagnostic.h"
#include "clang/Basic/FileManager.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Frontend/CompilerInstance.h"
#include "llvm/ADT/StringMap.h"

#include <algorithm>
#include <tuple>

using namespace meshad;

void DiagnosticReplayer::setEditedMainFile(clang::FileID NewMain,
                                           llvm::StringRef NewOriginal,
                                           llvm::ArrayRef<TextEdit> NewEdits) {
  EditedMain = NewMain;
  Original = NewOriginal;
  Edits = NewEdits;
}

static clang::DiagnosticsEngine::Level toClangLevel(Diagnostic::Level L) {
  switch (L) {
  case Diagnostic::Level::Error:
    return clang::DiagnosticsEngine::Error;
  case Diagnostic::Level::Warning:
    return clang::DiagnosticsEngine::Warning;
  case Diagnostic::Level::Remark:
    return clang::DiagnosticsEngine::Remark;
  case Diagnostic::Level::Note:
    return clang::DiagnosticsEngine::Note;
  }
  return clang::DiagnosticsEngine::Error;
}

/// One custom diagnostic ID per level; the message is its only argument.
static unsigned getDiagID(clang::DiagnosticsEngine &Engine,
                          Diagnostic::Level L) {
  return Engine.getCustomDiagID(toClangLevel(L), "%0");
}

void DiagnosticReplayer::report(const Diagnostic &D) {
  clang::DiagnosticsEngine &Engine = CI.getDiagnostics();
  clang::SourceLocation Loc = locate(D);
  std::string Message = D.Message;
  // A position clang cannot show (e.g. named by a #line directive) stays in
  // the text.
  if (Loc.isInvalid() && !D.File.empty())
    Message = D.File + ":" + std::to_string(D.Line) + ":" +
              std::to_string(D.Column) + ": " + Message;
  Engine.Report(Loc, getDiagID(Engine, D.Severity)) << Message;
}

clang::SourceLocation DiagnosticReplayer::locate(const Diagnostic &D) {
  if (D.File.empty() || D.Line == 0)
    return clang::SourceLocation();
  clang::SourceManager &SM = CI.getSourceManager();
  clang::OptionalFileEntryRef File =
      CI.getFileManager().getOptionalFileRef(D.File);
  if (!File)
    return clang::SourceLocation();
  clang::OptionalFileEntryRef Main =
      SM.getFileEntryRefForID(SM.getMainFileID());
  bool IsMain = Main && &Main->getFileEntry() == &File->getFileEntry();
  if (IsMain && EditedMain.isValid())
    return locateInEditedMainFile(D);
  clang::FileID FID = SM.translateFile(*File);
  // A header the real parse has not entered yet gets a FileID of its own.
  if (FID.isInvalid())
    FID = SM.createFileID(*File, clang::SourceLocation(),
                          clang::SrcMgr::C_User);
  return SM.translateLineCol(FID, D.Line, std::max(D.Column, 1u));
}

clang::SourceLocation
DiagnosticReplayer::locateInEditedMainFile(const Diagnostic &D) {
  std::optional<size_t> Offset =
      offsetOfLineColumn(Original, D.Line, D.Column);
  if (!Offset)
    return clang::SourceLocation();
  size_t NewOffset = mapOffset(Edits, Original.size(), *Offset);
  return CI.getSourceManager()
      .getLocForStartOfFile(EditedMain)
      .getLocWithOffset(static_cast<int>(NewOffset));
}

std::vector<Diagnostic>
meshad::inSourceOrder(llvm::ArrayRef<Diagnostic> Diags) {
  // A diagnostic and the notes after it: [Begin, End) of Diags.
  struct Group {
    size_t Begin, End;
    unsigned FileRank;
  };
  llvm::StringMap<unsigned> FileRanks;
  std::vector<Group> Groups;
  for (size_t I = 0; I < Diags.size(); ++I) {
    if (Diags[I].Severity == Diagnostic::Level::Note && !Groups.empty()) {
      Groups.back().End = I + 1;
      continue;
    }
    unsigned Rank = ~0u;
    if (!Diags[I].File.empty())
      Rank = FileRanks.try_emplace(Diags[I].File, FileRanks.size())
                 .first->second;
    Groups.push_back({I, I + 1, Rank});
  }
  std::stable_sort(Groups.begin(), Groups.end(),
                   [&](const Group &A, const Group &B) {
                     const Diagnostic &DA = Diags[A.Begin];
                     const Diagnostic &DB = Diags[B.Begin];
                     return std::tie(A.FileRank, DA.Line, DA.Column) <
                            std::tie(B.FileRank, DB.Line, DB.Column);
                   });
  std::vector<Diagnostic> Sorted;
  for (const Group &G : Groups)
    Sorted.insert(Sorted.end(), Diags.begin() + G.Begin, Diags.begin() + G.End);
  return Sorted;
}
