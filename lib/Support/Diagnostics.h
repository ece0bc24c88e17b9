//===- Support/Diagnostics.h - Collected meshad diagnostics ------*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Every component reports problems into a DiagnosticSink instead of
/// printing. The plugin runs the generator in a nested parse whose source
/// manager differs from the real compilation's, so diagnostics are stored with
/// a resolved file/line/column and re-reported in the real compilation.
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_SUPPORT_DIAGNOSTICS_H
#define MESHAD_SUPPORT_DIAGNOSTICS_H

#include "clang/Basic/SourceLocation.h"

#include <string>
#include <vector>

namespace clang {
class SourceManager;
} // namespace clang

namespace meshad {

/// One diagnostic with a resolved position.
struct Diagnostic {
  enum class Level { Error, Warning, Remark, Note };
  Level Severity = Level::Error;
  std::string File; ///< Empty when the location is unknown.
  unsigned Line = 0, Column = 0;
  std::string Message;
};

/// Collects diagnostics. Components call error()/warning()/remark() with a
/// location in the source manager they work on.
class DiagnosticSink {
public:
  explicit DiagnosticSink(const clang::SourceManager *SM = nullptr) : SM(SM) {}
  void setSourceManager(const clang::SourceManager *NewSM) { SM = NewSM; }

  void report(Diagnostic::Level L, clang::SourceLocation Loc,
              const std::string &Message);
  void error(clang::SourceLocation Loc, const std::string &Message) {
    report(Diagnostic::Level::Error, Loc, Message);
  }
  void warning(clang::SourceLocation Loc, const std::string &Message) {
    report(Diagnostic::Level::Warning, Loc, Message);
  }
  void remark(clang::SourceLocation Loc, const std::string &Message) {
    report(Diagnostic::Level::Remark, Loc, Message);
  }
  void note(clang::SourceLocation Loc, const std::string &Message) {
    report(Diagnostic::Level::Note, Loc, Message);
  }

  /// Remarks (-fplugin-arg-meshad-remarks) are dropped unless enabled.
  void setRemarksEnabled(bool Enabled) { RemarksEnabled = Enabled; }
  bool areRemarksEnabled() const { return RemarksEnabled; }

  bool hasErrors() const { return NumErrors != 0; }
  unsigned getNumErrors() const { return NumErrors; }
  const std::vector<Diagnostic> &getDiagnostics() const { return Diags; }

private:
  const clang::SourceManager *SM;
  std::vector<Diagnostic> Diags;
  unsigned NumErrors = 0;
  bool RemarksEnabled = false;
};

} // namespace meshad

#endif // MESHAD_SUPPORT_DIAGNOSTICS_H
