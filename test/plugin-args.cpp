// The plugin's arguments (-fplugin-arg-meshad-<arg>): help prints the usage,
// an unknown argument is a real clang error (also under -verify), the others
// are accepted, and dump-dir writes the main file as compiled (here: no
// requests, so unchanged).
//
// RUN: %clangxx -fsyntax-only -fplugin=%meshad_plugin -fplugin-arg-meshad-help %s 2>&1 | FileCheck %s --check-prefix=HELP
// HELP: usage: clang++ -fplugin=libmeshad.so [-fplugin-arg-meshad-<arg>...]
// HELP: help
// HELP: dump
// HELP: dump-dir=<dir>
// HELP: remarks
// HELP: uniform-sums=block
// HELP: no-line-directives
// HELP: no-simplify
//
// RUN: not %clangxx -fsyntax-only -fplugin=%meshad_plugin -fplugin-arg-meshad-bogus %s 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// UNKNOWN: error: meshad: unknown plugin argument 'bogus'; try -fplugin-arg-meshad-help
// RUN: not %clangxx -fsyntax-only -fplugin=%meshad_plugin -fplugin-arg-meshad-dump-dir= %s 2>&1 | FileCheck %s --check-prefix=EMPTY-DIR
// EMPTY-DIR: error: meshad: unknown plugin argument 'dump-dir='
// RUN: %clangxx -fsyntax-only -fplugin=%meshad_plugin -fplugin-arg-meshad-bogus -Xclang -verify -DVERIFY_UNKNOWN %s
//
// RUN: %clangxx -fsyntax-only -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -fplugin-arg-meshad-remarks -fplugin-arg-meshad-no-line-directives %s 2>&1 | count 0
// RUN: %clangxx -fsyntax-only -fplugin=%meshad_plugin -fplugin-arg-meshad-uniform-sums=warp -fplugin-arg-meshad-uniform-sums=block %s 2>&1 | count 0
//
// RUN: rm -rf %t.dir
// RUN: %clangxx -fsyntax-only -fplugin=%meshad_plugin -fplugin-arg-meshad-dump-dir=%t.dir/sub %s
// RUN: diff %s %t.dir/sub/plugin-args.cpp

#ifdef VERIFY_UNKNOWN
// expected-error@*:* {{meshad: unknown plugin argument 'bogus'; try -fplugin-arg-meshad-help}}
#endif

int main() { return 0; }
