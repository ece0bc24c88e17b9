//===- AD/DerivedFunctions.h - Registry of generated code -------*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Every function a transformation generates is registered here once, under
/// a key that says which primal, which mode and which parameters carry
/// derivatives. Requests and callees that need the same derivative share it;
/// the emitter walks the entries in creation order.
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_TRANSFORM_DERIVEDFUNCTIONS_H
#define MESHAD_TRANSFORM_DERIVEDFUNCTIONS_H

#include "IR/IR.h"
#include "Support/Diagnostics.h"

#include <map>
#include <set>
#include <string>
#include <vector>

namespace meshad {

/// A generated function and where it comes from.
struct DerivedFunction {
  ir::Function *Derived = nullptr;
  ir::Function *Primal = nullptr;
  /// Generated functions that Derived calls (for getCode() closures).
  std::set<ir::Function *> Callees;
};

/// The error for a call passing a struct that holds derivative-carrying
/// values as \p Callee's argument \p I (struct values carry no derivative
/// into a callee yet).
std::string structArgMessage(const ir::Function &Callee, unsigned I);

/// An identifier that generated names start with: \p F's name, or for an
/// overloaded operator a word for it (`operator+` is "operator_plus").
std::string baseName(const ir::Function &F);

/// The name of a derivative of \p Primal: Primal's name and \p Suffix
/// ("_grad", "_pushforward"), then "_<i>_<j>" listing the flagged parameters
/// unless every differentiable parameter is flagged.
std::string derivedName(const ir::Function &Primal,
                        const std::vector<bool> &Flags, const char *Suffix);

/// Reports an error at \p CallLoc and returns false when the definition of
/// \p Callee is not visible here (there is no body to differentiate).
bool checkDefinitionVisible(const ir::Function &Callee,
                            clang::SourceLocation CallLoc,
                            DiagnosticSink &Diags);

/// Reports an error at \p CallLoc and returns false when \p Callee returns
/// a struct (an opaque type) whose value may depend on the parameters
/// flagged in \p Active: meshad does not differentiate through struct
/// values, and dropping their derivative would be silently wrong.
bool checkStructResult(const ir::Function &Callee,
                       const std::vector<bool> &Active,
                       clang::SourceLocation CallLoc, DiagnosticSink &Diags);

/// The generated functions of one translation unit, in creation order.
class DerivedFunctionSet {
public:
  /// The registry key of the derivative named \p Name of \p Primal.
  static std::string keyFor(const ir::Function *Primal,
                            const std::string &Name);

  /// The function registered under \p Key, or null.
  ir::Function *lookup(const std::string &Key) const {
    auto It = ByKey.find(Key);
    return It == ByKey.end() ? nullptr : Entries[It->second].Derived;
  }
  /// Registers \p Derived (before its body is built, so recursion finds it).
  /// A derivative of a generated function (forward over reverse) is placed
  /// as a derivative of that function's user primal.
  void add(const std::string &Key, ir::Function *Derived,
           ir::Function *Primal) {
    if (const DerivedFunction *Of = find(Primal))
      Primal = Of->Primal;
    ByKey[Key] = Entries.size();
    ByFunction[Derived] = Entries.size();
    Entries.push_back({Derived, Primal, {}});
  }
  /// A new function \p Name derived from \p Primal, returning \p RetTy,
  /// with Primal's target, qualifiers, namespace and location; registered
  /// under keyFor(Primal, Name) before its body is built.
  ir::Function *create(ir::Module &M, ir::Function *Primal,
                       const std::string &Name, const ir::Type *RetTy);
  /// Records that \p Caller (a generated function) calls \p Callee.
  void addCall(ir::Function *Caller, ir::Function *Callee) {
    auto It = ByFunction.find(Caller);
    if (It != ByFunction.end())
      Entries[It->second].Callees.insert(Callee);
  }
  /// Sets the callees recorded for \p Caller to the generated functions
  /// its body calls (after a pass removed or replaced calls).
  void recomputeCalls(ir::Function *Caller);
  /// Removes the most recently added entries down to \p Size (used when a
  /// derivation fails part-way).
  void truncate(size_t Size);
  /// Removes \p F (an intermediate of a composition, never emitted).
  void remove(const ir::Function *F);

  const std::vector<DerivedFunction> &entries() const { return Entries; }
  const DerivedFunction *find(const ir::Function *Derived) const {
    auto It = ByFunction.find(Derived);
    return It == ByFunction.end() ? nullptr : &Entries[It->second];
  }
  /// \p Root and every generated function it calls, transitively, callees
  /// first.
  std::vector<ir::Function *> closure(ir::Function *Root) const;

private:
  std::vector<DerivedFunction> Entries;
  std::map<std::string, size_t> ByKey;
  std::map<const ir::Function *, size_t> ByFunction;
};

} // namespace meshad

#endif // MESHAD_TRANSFORM_DERIVEDFUNCTIONS_H
