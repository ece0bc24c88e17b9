//===- Driver/HessianRequest.cpp - meshad::hessian requests ---------------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//

#include "Driver/HessianRequest.h"
#include "AD/DerivedFunctions.h"

using namespace meshad;

/// The parameter \p Item names, or -1 after an error.
static int findParam(const ArgSpecItem &Item, const DerivativeRequest &R,
                     const ir::Function &F, DiagnosticSink &Diags) {
  if (Item.Number >= 0 &&
      static_cast<unsigned>(Item.Number) < F.getNumParams())
    return Item.Number;
  for (unsigned I = 0; Item.Number < 0 && I < F.getNumParams(); ++I)
    if (F.getParam(I)->getName() == Item.Name)
      return I;
  Diags.error(R.Loc, "'" + F.getName() + "' has no parameter " +
                         (Item.Number >= 0 ? "number " +
                                                 std::to_string(Item.Number)
                                           : "named '" + Item.Name + "'"));
  return -1;
}

/// The block of \p Item (parameter \p P), or none after an error.
static std::optional<HessianBlock> blockOf(const ArgSpecItem &Item,
                                           const ir::Var *P,
                                           const DerivativeRequest &R,
                                           DiagnosticSink &Diags) {
  const ir::Type *Ty = P->getType();
  const ir::Type *Elem = Ty->isIndexable() ? Ty->getElement() : Ty;
  if (!Elem->isFloatingScalar()) {
    Diags.error(R.Loc, "meshad::hessian: parameter '" + P->getName() +
                           "' has type " + ir::spellType(Ty) +
                           ", which carries no derivative; select "
                           "floating-point inputs");
    return std::nullopt;
  }
  HessianBlock Block;
  if (!Ty->isIndexable()) {
    if (Item.HasRange) {
      Diags.error(R.Loc, "meshad::hessian: parameter '" + P->getName() +
                             "' is not an array; remove the [...]");
      return std::nullopt;
    }
    return Block;
  }
  Block.Scalar = false;
  if (!Item.HasRange && Ty->isPointer()) {
    Diags.error(R.Loc, "meshad::hessian: the size of '" + P->getName() +
                           "' cannot be known (a pointer); select a range "
                           "of it, \"" + P->getName() + "[0:n]\"");
    return std::nullopt;
  }
  Block.Begin = Item.HasRange ? Item.Begin : 0;
  Block.End = Item.HasRange ? Item.End : Ty->getCount();
  if (Ty->isArray() && Block.End > Ty->getCount()) {
    Diags.error(R.Loc, "meshad::hessian: the range [" +
                           std::to_string(Block.Begin) + ":" +
                           std::to_string(Block.End) + "] is outside '" +
                           P->getName() + "', which has " +
                           std::to_string(Ty->getCount()) + " elements");
    return std::nullopt;
  }
  return Block;
}

std::optional<HessianLayout> meshad::resolveHessian(const DerivativeRequest &R,
                                                    const ir::Function &F,
                                                    DiagnosticSink &Diags) {
  std::vector<ArgSpecItem> Items = R.Items;
  if (Items.empty())
    for (unsigned I = 0; I < F.getNumParams(); ++I)
      if (F.getParam(I)->getType()->isDifferentiable()) {
        ArgSpecItem Item;
        Item.Number = I;
        Items.push_back(Item);
      }
  HessianLayout Layout;
  std::vector<bool> Seen(F.getNumParams(), false);
  for (const ArgSpecItem &Item : Items) {
    int Index = findParam(Item, R, F, Diags);
    if (Index < 0)
      return std::nullopt;
    const ir::Var *P = F.getParam(Index);
    if (Seen[Index]) {
      Diags.error(R.Loc, "meshad::hessian: '" + P->getName() +
                             "' is selected twice; select one range of it");
      return std::nullopt;
    }
    Seen[Index] = true;
    std::optional<HessianBlock> Block = blockOf(Item, P, R, Diags);
    if (!Block)
      return std::nullopt;
    Block->Param = Index;
    Block->Offset = Layout.Size;
    Layout.Size += Block->End - Block->Begin;
    Layout.Blocks.push_back(*Block);
  }
  if (Layout.Blocks.empty()) {
    Diags.error(R.Loc, "'" + F.getName() + "' has no differentiable "
                                           "parameter to differentiate");
    return std::nullopt;
  }
  return Layout;
}

/// meshad::hessian(kernel, "x"): the one selected array, whole.
static ir::Function *deriveElementHessian(ElementHessianBuilder &Elements,
                                          const DerivativeRequest &R,
                                          ir::Function &K,
                                          DiagnosticSink &Diags) {
  if (R.Items.size() != 1 || R.Items[0].HasRange) {
    Diags.error(R.Loc, "meshad::hessian of the kernel '" + K.getName() +
                           "' takes one whole array parameter, the DOFs its "
                           "elements read (\"x\")");
    return nullptr;
  }
  int Index = findParam(R.Items[0], R, K, Diags);
  if (Index < 0)
    return nullptr;
  const ir::Type *Ty = K.getParam(Index)->getType();
  if (!Ty->isPointer() || !Ty->getElement()->isFloatingScalar()) {
    Diags.error(R.Loc, "meshad::hessian of the kernel '" + K.getName() +
                           "': '" + K.getParam(Index)->getName() +
                           "' is not a pointer to floating-point DOFs");
    return nullptr;
  }
  return Elements.derive(&K, static_cast<unsigned>(Index), R.Loc);
}

/// meshad::hessian(f, "x", meshad::Sparse): one whole floating-point array
/// read by the loop of a host (or host-device) function.
static ir::Function *deriveSparseLoopHessian(SparseLoopHessianBuilder &Loops,
                                             const DerivativeRequest &R,
                                             ir::Function &F,
                                             DiagnosticSink &Diags) {
  const std::string Prefix =
      "meshad::hessian(" + F.getName() + ", \"" + R.Spec + "\", meshad::" +
      (R.SparseDevice ? "SparseDevice" : "Sparse") + "): ";
  if (R.SparseDevice && F.getTarget() != ir::CudaTarget::HostDevice) {
    Diags.error(R.Loc, Prefix + "'" + F.getName() +
                           "' is not __host__ __device__; its loops' terms "
                           "run in the generated kernels");
    return nullptr;
  }
  if (F.isKernel() || F.getTarget() == ir::CudaTarget::Device) {
    Diags.error(R.Loc, Prefix + "'" + F.getName() +
                           "' is device code; the sparse Hessian of a loop "
                           "is built on the host (a host or __host__ "
                           "__device__ function)");
    return nullptr;
  }
  if (!F.getReturnType()->isFloatingScalar()) {
    Diags.error(R.Loc, Prefix + "'" + F.getName() + "' returns " +
                           ir::spellType(F.getReturnType()) +
                           ", not a floating-point value");
    return nullptr;
  }
  std::vector<unsigned> Params;
  std::vector<bool> Selected(F.getNumParams(), false);
  for (const auto &Item : R.Items) {
    if (Item.HasRange) {
      Diags.error(R.Loc, Prefix + "select whole array parameters (\"x\" or "
                                  "\"x, v\"): the loops' ranges give their "
                                  "sizes");
      return nullptr;
    }
    int Index = findParam(Item, R, F, Diags);
    if (Index < 0)
      return nullptr;
    const ir::Var *X = F.getParam(Index);
    const ir::Type *Ty = X->getType();
    const ir::Type *First = F.getParam(Params.empty() ? Index : Params[0])
                                ->getType();
    if (!Ty->isPointer() || !Ty->getElement()->isFloatingScalar() ||
        Ty->getElement()->getUnqualified() !=
            First->getElement()->getUnqualified() ||
        Selected[Index]) {
      Diags.error(R.Loc, Prefix + "parameter '" + X->getName() +
                             "' has type " + ir::spellType(Ty) +
                             "; select pointers to floating-point values "
                             "of one type, each once");
      return nullptr;
    }
    Selected[Index] = true;
    Params.push_back(static_cast<unsigned>(Index));
  }
  return Loops.derive(
      &F, Params,
      derivedName(F, Selected,
                  R.SparseDevice ? "_hessian_sparse_device" : "_hessian_sparse"),
      R.Loc, R.SparseDevice);
}

ir::Function *meshad::deriveHessianRequest(HessianTransformer &T,
                                           ElementHessianBuilder &Elements,
                                           SparseLoopHessianBuilder &Loops,
                                           const DerivativeRequest &R,
                                           ir::Function &F,
                                           DiagnosticSink &Diags) {
  if (R.KeepSeeds) {
    Diags.error(R.OptionLoc, "meshad::hessian takes no option");
    return nullptr;
  }
  if (R.SparseHessian)
    return deriveSparseLoopHessian(Loops, R, F, Diags);
  if (F.isKernel())
    return deriveElementHessian(Elements, R, F, Diags);
  std::optional<HessianLayout> Layout = resolveHessian(R, F, Diags);
  if (!Layout)
    return nullptr;
  std::vector<bool> Selected(F.getNumParams(), false);
  for (const HessianBlock &Block : Layout->Blocks)
    Selected[Block.Param] = true;
  return T.deriveHessian(&F, *Layout, derivedName(F, Selected, "_hessian"),
                         R.Loc);
}
