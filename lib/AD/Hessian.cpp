//===- AD/Hessian.cpp - Dense local Hessians ------------------------------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//

#include "AD/Hessian.h"
#include "IR/NameScope.h"

using namespace meshad;
using namespace meshad::ir;

std::string HessianLayout::key() const {
  std::string Key;
  for (const HessianBlock &Block : Blocks) {
    Key += (Key.empty() ? "" : ",") + std::to_string(Block.Param);
    if (!Block.Scalar)
      Key += "[" + std::to_string(Block.Begin) + ":" +
             std::to_string(Block.End) + "]";
  }
  return Key;
}

ir::Function *HessianTransformer::deriveHessian(Function *Primal,
                                                const HessianLayout &Layout,
                                                std::string Name,
                                                clang::SourceLocation Loc) {
  auto Key = std::make_pair(static_cast<const Function *>(Primal), Layout.key());
  auto It = Done.find(Key);
  if (It != Done.end())
    return It->second;
  if (Primal->isKernel()) {
    Diags.error(Loc, "meshad::hessian of the __global__ kernel '" +
                         Primal->getName() +
                         "' is not supported yet; take the Hessian of the "
                         "__device__ function that computes one element's "
                         "energy, or use meshad::hvp on the kernel");
    return nullptr;
  }
  if (!Primal->getReturnType()->isFloatingScalar()) {
    Diags.error(Loc, "meshad::hessian needs a scalar function: '" +
                         Primal->getName() + "' returns " +
                         spellType(Primal->getReturnType()) +
                         ", not a floating-point value");
    return nullptr;
  }
  // The same name for another layout of the same parameters: numbered.
  unsigned Taken = NamesTaken[Name]++;
  if (Taken)
    Name += "_" + std::to_string(Taken);
  std::vector<bool> Selected(Primal->getNumParams(), false);
  for (const HessianBlock &Block : Layout.Blocks)
    Selected[Block.Param] = true;
  Function *H = Hvp.deriveHvp(Primal, Selected, Name, Loc);
  if (!H)
    return nullptr;
  NameScope Names;
  Names.addFunction(*H);
  Var *HParam = M.createVar(
      Names.unique("H"), M.getTypes().getPointer(Primal->getReturnType()),
      Var::Storage::Param,
      VarRoles(VarRoles::Tangent | VarRoles::Adjoint));
  if (!expandHessianLanes(M, *H, Primal->getNumParams(), Layout, HParam, Diags,
                          Loc))
    return nullptr;
  foldLaneConstants(M, *H);
  keepLowerTriangle(M, *H, HParam, Layout.Size);
  Done[Key] = H;
  return H;
}
