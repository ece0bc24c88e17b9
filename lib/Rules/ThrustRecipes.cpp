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
                             TangentHelper)                                    \
  {Name, Args, Adjoint, Forward, Tangent, TangentHelper},
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
