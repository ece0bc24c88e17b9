//===- Rules/ThrustRecipes.cpp - Adjoint recipes of Thrust primitives -----===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//

#include "Rules/ThrustRecipes.h"

#include "llvm/ADT/STLExtras.h"

using namespace meshad;

static const ThrustRecipe Recipes[] = {
#define MESHAD_THRUST_RECIPE(Name, Args, Adjoint, Forward)                     \
  {Name, Args, Adjoint, Forward},
#include "Rules/ThrustRecipes.def"
};

const ThrustRecipe *meshad::lookupThrustRecipe(llvm::StringRef Name,
                                               unsigned NumArgs) {
  for (const ThrustRecipe &R : Recipes)
    if (Name == R.Name && R.numArgs() == NumArgs)
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
