//===- Driver/GeneratedNames.h - Generated names vs the user's ---*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The translation-unit level of naming: generated functions take names
/// that no user declaration has, and generated code that would call a
/// function a user variable hides is an error at the variable.
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_DRIVER_GENERATEDNAMES_H
#define MESHAD_DRIVER_GENERATEDNAMES_H

#include "IR/NameScope.h"
#include "Support/Diagnostics.h"
#include "AD/DerivedFunctions.h"

namespace clang {
class ASTContext;
class DeclContext;
} // namespace clang

namespace meshad {

/// Reserves the identifiers of every declaration at namespace scope in
/// \p DC and the namespaces it contains (all of them, conservatively).
void reserveNamespaceScopeNames(const clang::DeclContext *DC,
                                ir::NameScope &Names);

/// Renames the generated functions whose names the user has taken (a
/// function, variable, type or macro of that name: "f_grad" becomes
/// "f_grad_1") or that another generated function of the same namespace
/// and parameter types has. Overloads (a template's derivatives for double
/// and for float) keep their common name.
void uniqueFunctionNames(clang::ASTContext &Ctx,
                         const DerivedFunctionSet &Derived,
                         const ir::NameScope &TUNames);

/// Reports an error where a variable of a generated function (one of the
/// user's) has the name of a math function or intrinsic that the generated
/// code calls (a local `cos` in a function that calls sin): the call would
/// not compile. Calls of user and generated functions are qualified
/// instead. False after an error.
bool checkHiddenCallees(const DerivedFunctionSet &Derived,
                        DiagnosticSink &Diags);

} // namespace meshad

#endif // MESHAD_DRIVER_GENERATEDNAMES_H
