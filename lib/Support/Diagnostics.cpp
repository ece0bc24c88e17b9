//===- Support/Diagnostics.cpp - Collected meshad diagnostics -------------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//

#include "Support/Diagnostics.h"
#include "clang/Basic/SourceManager.h"

using namespace meshad;

void DiagnosticSink::report(Diagnostic::Level L, clang::SourceLocation Loc,
                            const std::string &Message) {
  if (L == Diagnostic::Level::Remark && !RemarksEnabled)
    return;
  Diagnostic D;
  D.Severity = L;
  D.Message = Message;
  if (SM && Loc.isValid()) {
    // Report macro expansions at the place the user wrote them.
    clang::PresumedLoc P = SM->getPresumedLoc(SM->getFileLoc(Loc));
    if (P.isValid()) {
      D.File = P.getFilename();
      D.Line = P.getLine();
      D.Column = P.getColumn();
    }
  }
  if (L == Diagnostic::Level::Error)
    ++NumErrors;
  Diags.push_back(std::move(D));
}
