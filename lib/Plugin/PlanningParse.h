//===- Plugin/PlanningParse.h - The planning parse --------------*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Before the real parse, the plugin parses the same translation unit once
/// more in a nested CompilerInstance (syntax only, MESHAD_PLANNING=1, its own
/// diagnostics ignored) and runs the generator on that AST.
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_PLUGIN_PLANNINGPARSE_H
#define MESHAD_PLUGIN_PLANNINGPARSE_H

#include "Driver/GenerateAction.h"

namespace clang {
class CompilerInstance;
} // namespace clang

namespace meshad {

/// Parses the main file of \p CI in a nested compiler instance and runs the
/// generator on it.
GenerationOutcome runPlanningParse(clang::CompilerInstance &CI,
                                   const GeneratorOptions &Opts);

/// True while a planning parse runs on this thread: every registered plugin
/// action also runs in the nested instance and must then do nothing.
bool isInPlanningParse();

} // namespace meshad

#endif // MESHAD_PLUGIN_PLANNINGPARSE_H
