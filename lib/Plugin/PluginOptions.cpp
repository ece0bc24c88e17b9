//===- Plugin/PluginOptions.cpp - -fplugin-arg-meshad-* options -----------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//

#include "Plugin/PluginOptions.h"

#include "llvm/ADT/StringRef.h"

using namespace meshad;

bool PluginOptions::parse(llvm::ArrayRef<std::string> Args,
                          std::string &Unknown) {
  const llvm::StringRef DumpDirPrefix = "dump-dir=";
  for (llvm::StringRef Arg : Args) {
    if (Arg == "help")
      Help = true;
    else if (Arg == "dump")
      Dump = true;
    else if (Arg == "remarks")
      Remarks = Generator.Remarks = true;
    else if (Arg == "atomics=all")
      Generator.ForceAtomics = true;
    else if (Arg == "atomics=auto")
      Generator.ForceAtomics = false;
    else if (Arg == "element-baseline")
      Generator.ElementBaseline = true;
    else if (Arg == "element-parts=always")
      Generator.ElementPartsAlways = true;
    else if (Arg == "uniform-sums=warp")
      Generator.UniformSumsPerWarp = true;
    else if (Arg == "uniform-sums=block")
      Generator.UniformSumsPerWarp = false;
    else if (Arg == "ownership-crosscheck")
      Generator.OwnershipCrossCheck = true;
    else if (Arg == "verify")
      Generator.Verify = true;
    else if (Arg == "no-line-directives")
      Generator.LineDirectives = false;
    else if (Arg == "no-simplify")
      Generator.Simplify = false;
    else if (Arg.starts_with(DumpDirPrefix) &&
             Arg.size() > DumpDirPrefix.size())
      DumpDir = Arg.drop_front(DumpDirPrefix.size()).str();
    else {
      Unknown = Arg.str();
      return false;
    }
  }
  return true;
}

const char *PluginOptions::getUsage() {
  return "meshad: source-to-source automatic differentiation of CUDA C++\n"
         "usage: clang++ -fplugin=libmeshad.so [-fplugin-arg-meshad-<arg>...]\n"
         "arguments:\n"
         "  help                print this text\n"
         "  dump                print the generated code to stderr\n"
         "  dump-dir=<dir>      write the augmented main file to "
         "<dir>/<file name>\n"
         "  remarks             report optimisation remarks\n"
         "  atomics=all         atomicAdd on every shared adjoint store "
         "(ignore the\n"
         "                      ownership analysis; default atomics=auto)\n"
         "  element-baseline    element gradients: slots zeroed and added "
         "to, the\n"
         "                      gather's whole pullback per vertex\n"
         "  element-parts=always  gathers recompute each vertex's own part "
         "of the\n"
         "                      pullback wherever it saves any work\n"
         "  uniform-sums=block  sum block-uniform adjoint adds of reverse "
         "loops per\n"
         "                      block, not per warp (default "
         "uniform-sums=warp)\n"
         "  ownership-crosscheck  warn where the ownership of a gradient "
         "kernel's\n"
         "                      adjoint array differs between the primal and "
         "the\n"
         "                      finished function (a development check)\n"
         "  no-line-directives  do not wrap generated code in #line "
         "directives\n"
         "  verify              check the generated IR after each pass "
         "(internal errors\n"
         "                      are reported at the function)\n"
         "  no-simplify         emit the derivatives as the transformers "
         "build them\n"
         "                      (no constant propagation, folding, CSE, "
         "merging)\n";
}
