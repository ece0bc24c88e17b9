//===- Plugin/PluginOptions.h - -fplugin-arg-meshad-* options ---*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The plugin's command-line arguments, given as -fplugin-arg-meshad-<arg>.
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_PLUGIN_PLUGINOPTIONS_H
#define MESHAD_PLUGIN_PLUGINOPTIONS_H

#include "Driver/Generator.h"

#include "llvm/ADT/ArrayRef.h"

#include <string>

namespace meshad {

/// Options of one compilation, parsed from the plugin's arguments.
struct PluginOptions {
  /// Print the usage text.
  bool Help = false;
  /// Print the generated code (GenerationResult::Dump) to stderr.
  bool Dump = false;
  /// Write the augmented main file into this directory when not empty.
  std::string DumpDir;
  /// Optimisation remarks were asked for.
  bool Remarks = false;
  GeneratorOptions Generator;

  /// Parses \p Args. Returns the first unknown argument in \p Unknown and
  /// false when there is one.
  bool parse(llvm::ArrayRef<std::string> Args, std::string &Unknown);

  /// The text that -fplugin-arg-meshad-help prints.
  static const char *getUsage();
};

} // namespace meshad

#endif // MESHAD_PLUGIN_PLUGINOPTIONS_H
