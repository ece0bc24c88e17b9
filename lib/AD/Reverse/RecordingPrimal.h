//===- AD/Reverse/RecordingPrimal.h - Callees that log overwrites --*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// A pullback runs its callee again, from the memory as it was before the
/// call. When the callee overwrites memory of unknown size that the caller
/// was given (a pointer parameter), the caller cannot copy that memory
/// beforehand; instead its forward sweep calls a recording variant of the
/// callee, which logs the address and old value of each store through its
/// pointer parameters into a meshad::UndoLog (meshad/codegen/Tape.h) before making
/// it. The reverse sweep rolls the log back before and after the pullback.
///
/// \code
///   void scale(double *v, int n, double s);           // the primal
///   void scale_record(double *v, int n, double s, meshad::UndoLog *_undo);
///   // for (...) { meshad::undoRecord(_undo, &v[i]); v[i] = v[i] * s; }
/// \endcode
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_TRANSFORM_RECORDINGPRIMAL_H
#define MESHAD_TRANSFORM_RECORDINGPRIMAL_H

#include "IR/IR.h"
#include "Support/Diagnostics.h"
#include "AD/DerivedFunctions.h"

namespace meshad {

class RecordingPrimals {
public:
  RecordingPrimals(ir::Module &M, DiagnosticSink &Diags,
                   DerivedFunctionSet &Derived)
      : M(M), Diags(Diags), Derived(Derived) {}

  /// The recording variant of \p Primal: its parameters, then a
  /// `meshad::UndoLog *`. Shared between callers. Null after reporting an
  /// error at \p CallLoc or at the store that cannot be logged.
  ir::Function *get(ir::Function *Primal, clang::SourceLocation CallLoc);

  /// True when \p F stores through a pointer it was given, directly or in
  /// a callee: calls of it must go to the recording variant.
  static bool writesThroughPointers(const ir::Function *F);
  /// True when \p F stores through its \p I-th parameter (a pointer, or a
  /// pointer set from it), directly or in a callee it passes it to.
  static bool writesThroughParam(const ir::Function &F, unsigned I);

private:
  ir::Module &M;
  DiagnosticSink &Diags;
  DerivedFunctionSet &Derived;
};

} // namespace meshad

#endif // MESHAD_TRANSFORM_RECORDINGPRIMAL_H
