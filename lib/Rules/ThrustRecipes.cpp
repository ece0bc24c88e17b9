//===- Rules/ThrustRecipes.cpp - Adjoint recipes of Thrust primitives -----===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//

#include "Rules/ThrustRecipes.h"

#include "llvm/ADT/STLExtras.h"

using namespace meshad;

static const ThrustRecipe Recipes[] = {
#define MESHAD_THRUST_RECIPE(Name, Args, Adjoint, Forward, Tangent,            \
                             TangentHelper, AdjointTangent)                    \
  {Name, Args, Adjoint, Forward, Tangent, TangentHelper, AdjointTangent},
#include "Rules/ThrustRecipes.def"
};

const ThrustRecipe *meshad::lookupThrustRecipe(llvm::StringRef Name,
                                               unsigned NumArgs,
                                               bool UserFunctor) {
  for (const ThrustRecipe &R : Recipes)
    if (Name == R.Name && R.numArgs() == NumArgs &&
        R.takesUserFunctor() == UserFunctor)
      return &R;
  return nullptr;
}

const ThrustRecipe *meshad::lookupThrustCall(llvm::StringRef Callee,
                                             unsigned NumArgs,
                                             bool UserFunctor) {
  if (!Callee.consume_front("thrust::"))
    return nullptr;
  return lookupThrustRecipe(Callee, NumArgs, UserFunctor);
}

std::string meshad::thrustAdjointLayout(const ThrustRecipe &R) {
  std::string Layout = "n", Tail;
  if (R.returnsValue())
    Layout += 's';
  for (unsigned I = 0; I < R.numArgs(); ++I) {
    switch (R.role(I)) {
    case ThrustArg::Policy:
    case ThrustArg::Last:
    case ThrustArg::Scalar: // Its adjoint is what the helper returns.
      break;
    case ThrustArg::SavedInput:
      Layout += 'I';
      Tail += 'X';
      break;
    case ThrustArg::Input:
      Layout += 'I';
      break;
    case ThrustArg::Output:
    case ThrustArg::Keys:
      Layout += 'R';
      break;
    default: // N, M, f, x, C, u: as they are.
      Layout += R.Args[I];
      break;
    }
  }
  if (R.hasForwardHelper())
    Tail += 'P';
  return Layout + Tail;
}

const ThrustRecipe *meshad::lookupThrustAdjoint(llvm::StringRef Helper,
                                                unsigned NumArgs) {
  for (const ThrustRecipe &R : Recipes) {
    if (Helper != R.Adjoint)
      continue;
    unsigned Listed = thrustAdjointLayout(R).size();
    // The adjoints of a user functor's captures follow the listed ones.
    if (NumArgs == Listed || (R.takesUserFunctor() && NumArgs > Listed))
      return &R;
  }
  return nullptr;
}

const ThrustRecipe *meshad::lookupThrustRecording(llvm::StringRef Helper,
                                                  unsigned NumArgs) {
  for (const ThrustRecipe &R : Recipes)
    if (R.hasForwardHelper() && Helper == R.Forward && NumArgs == R.numArgs())
      return &R;
  return nullptr;
}

std::string meshad::listThrustPrimitives() {
  std::string Out;
  llvm::StringRef Previous;
  for (const ThrustRecipe &R : Recipes) {
    if (Previous == R.Name) // Rows of one primitive are adjacent.
      continue;
    Previous = R.Name;
    Out += Out.empty() ? "" : ", ";
    Out += R.Name;
  }
  return Out;
}

bool meshad::isKnownThrustFunctor(llvm::StringRef Name) {
  // Keep in step with the functor table of meshad/codegen/ThrustAdjoint.h.
  static const char *const Known[] = {"plus", "minus", "multiplies",
                                      "negate", "square"};
  return llvm::is_contained(Known, Name);
}

bool meshad::isLinearThrustFunctor(llvm::StringRef Name) {
  return Name == "plus" || Name == "minus" || Name == "negate";
}
