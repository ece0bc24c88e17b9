//===- IR/NameScope.h - Unique, readable generated names --------*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// One NameScope per generated function knows every identifier the
/// function's code can see or must not hide: the user's (parameters, locals
/// at any depth, the globals and functions it refers to) and every name
/// generated so far. Generated names come from it only, so they never
/// collide with the user's, whatever the user calls things: the usual
/// readable name when it is free ("_d_x", "_t0"), a numbered variant when
/// it is not ("_d_x_1", "_t1").
///
/// \code
///   ir::NameScope Names;
///   Names.addFunction(*Primal);           // x, _d_x (a user local), ...
///   Names.derivative("x");                // "_d_x_1": "_d_x" is taken
///   Names.numbered("_t");                 // "_t0", then "_t1"...
/// \endcode
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_IR_NAMESCOPE_H
#define MESHAD_IR_NAMESCOPE_H

#include <map>
#include "llvm/ADT/StringRef.h"

#include <set>
#include <string>

namespace meshad {
namespace ir {

class Function;
class Stmt;

/// The identifiers of one generated function (see the file comment).
class NameScope {
public:
  /// Reserves every identifier \p F uses: its parameters, the variables it
  /// declares at any depth, the globals it reads and the user functions it
  /// calls (a generated local must not hide them).
  void addFunction(const Function &F);
  /// Reserves the variables declared in \p S and the names it refers to.
  void addStmt(const Stmt *S);
  /// Reserves \p Name (a user's identifier, or one generated elsewhere).
  void reserve(const std::string &Name) { Known.insert(Name); }
  bool contains(const std::string &Name) const { return Known.count(Name); }

  /// \p Name when it is free, else the first free "Name_1", "Name_2"...;
  /// the result is reserved.
  std::string unique(const std::string &Name);
  /// The first free "Prefix0", "Prefix1"... (temporaries: "_t0", "_r3");
  /// the result is reserved.
  std::string numbered(const std::string &Prefix);
  /// The name of the derivative (tangent, adjoint) of the variable named
  /// \p Primal, made unique as unique() does: "_d_" + Primal in a first
  /// derivative; in a derivative of order N >= 2 (a mode over another
  /// mode's output, see setOrder) "_d<N>_" + Primal without its leading
  /// underscore, so that nested modes read apart: x -> _d2_x, the adjoint
  /// _d_x -> _d2_d_x, the temporary _r0 -> _d2_r0.
  std::string derivative(const std::string &Primal) {
    if (Order < 2)
      return unique("_d_" + Primal);
    llvm::StringRef Base(Primal);
    Base.consume_front("_");
    return unique("_d" + std::to_string(Order) + "_" + Base.str());
  }
  /// The order of the derivative the names are for (1: of a user function,
  /// 2: of a first derivative...).
  void setOrder(unsigned N) { Order = N; }
  /// A declaration that keeps a user's name where it can: \p Name for its
  /// first declaration in the generated function, a unique variant for
  /// each later one (reverse mode declares every local at function scope,
  /// so shadowing locals must be renamed).
  std::string declare(const std::string &Name);

private:
  unsigned Order = 1;
  std::set<std::string> Known;
  std::set<std::string> Declared;
  /// Where the search for a free variant resumes: per prefix of
  /// numbered(), per name of unique() (names once taken stay taken).
  std::map<std::string, unsigned> NextNumber, NextSuffix;
};

} // namespace ir
} // namespace meshad

#endif // MESHAD_IR_NAMESCOPE_H
