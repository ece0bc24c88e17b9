//===- Rules/ThrustRecipes.h - Adjoint recipes of Thrust primitives -*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The rows of Rules/ThrustRecipes.def: how derivatives pass a call of a
/// Thrust primitive on raw device pointers.
///
/// \code
///   if (const ThrustRecipe *R = lookupThrustRecipe("reduce", 4))
///     for (unsigned I = 0; I < R->numArgs(); ++I)
///       if (R->role(I) == ThrustArg::Map) ...
/// \endcode
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_RULES_THRUSTRECIPES_H
#define MESHAD_RULES_THRUSTRECIPES_H

#include "llvm/ADT/StringRef.h"

#include <string>

namespace meshad {

/// What an argument of a Thrust primitive is (the letters of the table).
enum class ThrustArg : char {
  Policy = 'e',
  Input = 'F',
  SavedInput = 'X',
  Last = 'L',
  Output = 'O',
  Keys = 'K',
  Map = 'M',
  Scalar = 'S',
  Functor = 'f',
  UserFunctor = 'u',
  Extremum = 'x',
  Constant = 'C',
  Counting = 'N',
};

/// One row of Rules/ThrustRecipes.def.
struct ThrustRecipe {
  const char *Name;
  const char *Args;
  const char *Adjoint;
  const char *Forward;
  /// Forward mode: "same", "fill", "replace", "record" or "" (see the .def
  /// file).
  const char *Tangent;
  /// Forward mode where Tangent does not apply: a helper's name, or "".
  const char *TangentHelper;
  /// Forward mode over the adjoint helper (Hessian-vector products):
  /// "same", a helper's name, or "" (see the .def file).
  const char *AdjointTangent;

  unsigned numArgs() const { return llvm::StringRef(Args).size(); }
  ThrustArg role(unsigned I) const { return ThrustArg(Args[I]); }
  /// True for the reductions: the call's value carries a derivative.
  bool returnsValue() const { return llvm::StringRef(Name).ends_with("reduce"); }
  bool hasForwardHelper() const { return Forward[0] != '\0'; }
  bool hasTangentHelper() const { return TangentHelper[0] != '\0'; }
  /// True when the TangentHelper's call replaces the primal call.
  bool tangentReplaces() const {
    return llvm::StringRef(Tangent) == "replace";
  }
  /// True when forward mode makes the recording helper's call instead of
  /// the primal one and permutes the tangents after it (sort_by_key).
  bool tangentRecords() const { return llvm::StringRef(Tangent) == "record"; }
  /// True for the rows over counting iterators (letter N): the functor
  /// takes the index and writes through the pointers it captures, which
  /// the forward sweep snapshots.
  bool iteratesIndices() const {
    return llvm::StringRef(Args).contains(char(ThrustArg::Counting));
  }
  /// True for the rows of a user functor or lambda (letter u).
  bool takesUserFunctor() const {
    return llvm::StringRef(Args).contains(char(ThrustArg::UserFunctor));
  }
  /// True when the adjoint helper is linear in the seed and the adjoints
  /// it reads: its tangent is the same helper on their tangents.
  bool adjointIsLinear() const {
    return llvm::StringRef(AdjointTangent) == "same";
  }
  bool hasAdjointTangent() const { return AdjointTangent[0] != '\0'; }
};

/// The recipe of `thrust::Name` called with \p NumArgs arguments (the
/// policy included) and a user functor or lambda (\p UserFunctor) or not,
/// or null.
const ThrustRecipe *lookupThrustRecipe(llvm::StringRef Name, unsigned NumArgs,
                                       bool UserFunctor = false);

/// The recipe of the intrinsic call `thrust::<name>` (\p Callee) with
/// \p NumArgs arguments, or null for other names.
const ThrustRecipe *lookupThrustCall(llvm::StringRef Callee, unsigned NumArgs,
                                     bool UserFunctor = false);

/// The recipe whose adjoint helper (the intrinsic \p Helper) is called
/// with \p NumArgs arguments, or null: what forward mode over a gradient
/// finds in its reverse sweep.
const ThrustRecipe *lookupThrustAdjoint(llvm::StringRef Helper,
                                        unsigned NumArgs);

/// The recipe whose recording helper (the Forward column, called with the
/// permutation and the primitive's arguments after the policy) is \p
/// Helper, or null.
const ThrustRecipe *lookupThrustRecording(llvm::StringRef Helper,
                                          unsigned NumArgs);

/// The arguments of the call of \p R's adjoint helper, one letter each, in
/// the order reverse mode passes them (AD/Reverse/ReverseThrust.cpp): `n`
/// the count, `s` the seed of a reduction, `I` the adjoint of a range read
/// (added to), `R` the adjoint of a range written (read, then reset or
/// permuted), `X` a saved input, `M` a saved index map, `P` the recorded
/// permutation, and the letters N, f, x, C, u of the table as they are.
/// The adjoints of a user functor's captures follow (not listed).
std::string thrustAdjointLayout(const ThrustRecipe &R);

/// The primitives of the table, for diagnostics ("copy, fill, ...").
std::string listThrustPrimitives();

/// The Thrust functors the adjoint helpers know, by the name of their class
/// (thrust::plus<T> is cuda::std::plus<T>): plus, minus, multiplies,
/// negate, square.
bool isKnownThrustFunctor(llvm::StringRef Name);
/// True for the known functors that are linear (plus, minus, negate).
bool isLinearThrustFunctor(llvm::StringRef Name);

/// The lowering carries a functor as a literal of this opaque type, whose
/// spelling is "thrust functor <name>".
inline constexpr const char *ThrustFunctorTypePrefix = "thrust functor ";
/// A user functor or lambda is carried as a call of its lowered operator()
/// (or of that one's derivative) that binds the leading arguments (the
/// object, or the captures), of the opaque type spelled so; the emitter
/// spells it as the object, or as a lambda over the other parameters.
inline constexpr const char *ThrustUserFunctorType = "thrust functor user";
/// A counting iterator is carried as the intrinsic call
/// `thrust::make_counting_iterator(a)` of the opaque type spelled so.
inline constexpr const char *ThrustCountingType = "thrust counting iterator";
inline constexpr const char *ThrustCountingCall =
    "thrust::make_counting_iterator";

} // namespace meshad

#endif // MESHAD_RULES_THRUSTRECIPES_H
