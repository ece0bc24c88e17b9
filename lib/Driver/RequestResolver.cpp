//===- Driver/RequestResolver.cpp - Requests to derivation jobs -----------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//

#include "Driver/RequestResolver.h"
#include "AD/Reverse/ReverseMode.h"

using namespace meshad;

static std::string describeParams(const ir::Function &F,
                                  llvm::StringRef Unknown);

/// Finds the parameter an item names; reports and returns -1 if none.
static int findParam(const ArgSpecItem &Item, const DerivativeRequest &R,
                     const ir::Function &F, DiagnosticSink &Diags) {
  if (Item.Number >= 0) {
    if (static_cast<unsigned>(Item.Number) < F.getNumParams())
      return Item.Number;
    Diags.error(R.Loc, "'" + F.getName() + "' has no parameter number " +
                           std::to_string(Item.Number) + " (it has " +
                           std::to_string(F.getNumParams()) + ")");
    return -1;
  }
  for (unsigned I = 0; I < F.getNumParams(); ++I)
    if (F.getParam(I)->getName() == Item.Name)
      return I;
  Diags.error(R.Loc, "'" + F.getName() + "' has no parameter named '" +
                         Item.Name + "'" + describeParams(F, Item.Name));
  return -1;
}

/// " (did you mean 'y'?); its parameters are x, y", for an unknown name.
static std::string describeParams(const ir::Function &F,
                                  llvm::StringRef Unknown) {
  if (F.getNumParams() == 0)
    return "; it has no parameters";
  std::string Closest;
  unsigned Best = ~0u;
  std::string List;
  for (unsigned I = 0; I < F.getNumParams(); ++I) {
    llvm::StringRef Name = F.getParam(I)->getName();
    List += (I ? ", " : "") + Name.str();
    // Case alone counts as the closest; otherwise at most a third of the
    // letters differ.
    unsigned Distance = Unknown.equals_insensitive(Name)
                            ? 0
                            : Unknown.edit_distance(Name);
    if (Distance < Best &&
        3 * Distance <= std::max(Unknown.size(), Name.size())) {
      Best = Distance;
      Closest = Name.str();
    }
  }
  std::string Suggestion;
  if (!Closest.empty())
    Suggestion = " (did you mean '" + Closest + "'?)";
  return Suggestion + "; its parameters are " + List;
}

/// A request for a function whose body this translation unit does not see is
/// an error at the request, with a note at the declaration.
static bool checkDefinition(const DerivativeRequest &R, const ir::Function &F,
                            DiagnosticSink &Diags) {
  if (F.getBody())
    return true;
  Diags.error(R.Loc, "cannot differentiate '" + F.getName() +
                         "': its definition is not visible in this "
                         "translation unit; define it here (or in a header "
                         "this file includes)");
  Diags.note(F.getLoc(), "'" + F.getName() + "' is declared here");
  return false;
}

/// A derivative needs a void or differentiable return type.
static bool checkReturnType(const DerivativeRequest &R, const ir::Function &F,
                            DiagnosticSink &Diags) {
  const ir::Type *RetTy = F.getReturnType();
  if (RetTy->isVoid() || RetTy->isDifferentiableValue())
    return true;
  Diags.error(R.Loc, "'" + F.getName() + "' returns " + ir::spellType(RetTy) +
                         ", which carries no derivative");
  return false;
}

/// The only differentiable parameter, for an empty spec; -1 if not unique.
static int soleDifferentiableParam(const ir::Function &F) {
  int Found = -1;
  for (unsigned I = 0; I < F.getNumParams(); ++I)
    if (F.getParam(I)->getType()->isDifferentiable()) {
      if (Found >= 0)
        return -1;
      Found = I;
    }
  return Found;
}

/// Seeds one element of the array parameter \p P (number \p Index) that
/// \p Item selects; false after an error (not an array, a range, out of
/// bounds).
static bool seedElement(const DerivativeRequest &R, const ArgSpecItem &Item,
                        const ir::Var *P, unsigned Index, ForwardJob &Job,
                        DiagnosticSink &Diags) {
  const ir::Type *Ty = P->getType();
  if (!Ty->isIndexable()) {
    Diags.error(R.Loc, "parameter '" + P->getName() +
                           "' is not an array; remove the [...]");
    return false;
  }
  if (!Item.isElement()) {
    Diags.error(R.Loc, "forward mode differentiates w.r.t. one element; "
                       "\"" + R.Spec + "\" names a range");
    return false;
  }
  if (Ty->isArray() && Item.Begin >= Ty->getCount()) {
    Diags.error(R.Loc, "element " + std::to_string(Item.Begin) +
                           " is out of the bounds of '" + P->getName() +
                           "'");
    return false;
  }
  Job.Seeds[Index] = ParamSeed::unitElement(Item.Begin);
  Job.Name += "_" + std::to_string(Item.Begin);
  return true;
}

std::optional<ForwardJob> meshad::resolveForward(const DerivativeRequest &R,
                                                 const ir::Function &F,
                                                 DiagnosticSink &Diags) {
  if (!checkDefinition(R, F, Diags) || !checkReturnType(R, F, Diags))
    return std::nullopt;
  ArgSpecItem Item;
  if (R.Items.size() > 1) {
    Diags.error(R.Loc, "forward mode differentiates w.r.t. one parameter or "
                       "one array element; use meshad::gradient for several");
    return std::nullopt;
  }
  int Index;
  if (R.Items.empty()) {
    Index = soleDifferentiableParam(F);
    if (Index < 0) {
      Diags.error(R.Loc, "name the parameter to differentiate w.r.t. ('" +
                             F.getName() +
                             "' has several or no differentiable ones)");
      return std::nullopt;
    }
  } else {
    Item = R.Items.front();
    Index = findParam(Item, R, F, Diags);
    if (Index < 0)
      return std::nullopt;
  }
  const ir::Var *P = F.getParam(Index);
  const ir::Type *Ty = P->getType();
  ForwardJob Job;
  Job.Seeds.resize(F.getNumParams());
  Job.Name = F.getName() + "_darg" + std::to_string(Index);
  if (!Ty->isDifferentiable()) {
    Diags.error(R.Loc, "parameter '" + P->getName() + "' has type " +
                           ir::spellType(Ty) + ", which carries no derivative");
    return std::nullopt;
  }
  if (Item.HasRange) {
    if (!seedElement(R, Item, P, Index, Job, Diags))
      return std::nullopt;
    return Job;
  }
  // A scalar gets tangent 1; arrays and vectors take a direction argument.
  Job.Seeds[Index] = Ty->isFloatingScalar() ? ParamSeed::unit()
                                            : ParamSeed::tangent();
  return Job;
}

/// The parameters a gradient request selects (all the differentiable ones
/// for an empty spec) into \p Selected; false after an error (an unknown
/// or non-differentiable parameter, part of an array, none at all).
static bool selectParams(const DerivativeRequest &R, const ir::Function &F,
                         std::vector<bool> &Selected, DiagnosticSink &Diags) {
  Selected.assign(F.getNumParams(), false);
  if (R.Items.empty())
    for (unsigned I = 0; I < F.getNumParams(); ++I)
      Selected[I] = F.getParam(I)->getType()->isDifferentiable();
  for (const ArgSpecItem &Item : R.Items) {
    int Index = findParam(Item, R, F, Diags);
    if (Index < 0)
      return false;
    const ir::Var *P = F.getParam(Index);
    if (!P->getType()->isDifferentiable()) {
      Diags.error(R.Loc, "parameter '" + P->getName() + "' has type " +
                             ir::spellType(P->getType()) +
                             ", which carries no derivative");
      return false;
    }
    if (Item.HasRange) {
      Diags.error(R.Loc, "meshad::gradient takes whole parameters; \"" +
                             R.Spec + "\" selects part of '" + P->getName() +
                             "' (its adjoint array covers all of it)");
      return false;
    }
    Selected[Index] = true;
  }
  bool Any = false;
  for (bool S : Selected)
    Any |= S;
  if (!Any) {
    Diags.error(R.Loc, "'" + F.getName() + "' has no differentiable "
                                           "parameter to differentiate");
    return false;
  }
  return true;
}

/// The name of the gradient: one suffix per option of the request.
static std::string gradientName(const DerivativeRequest &R,
                                const ir::Function &F,
                                const std::vector<bool> &Selected) {
  using Strategy = DerivativeRequest::Strategy;
  std::string Name = derivedName(F, Selected, "_grad");
  if (R.KeepSeeds)
    Name += "_keep_seeds";
  if (R.ElementStrategy == Strategy::Atomics)
    Name += "_atomics";
  // An explicit strategy gets a kernel of its own (Auto's may be the
  // other one).
  if (R.ElementStrategy == Strategy::Gather)
    Name += "_gather";
  if (R.ElementStrategy == Strategy::TwoPhase)
    Name += "_two_phase";
  if (R.ElementStrategy == Strategy::Fastest)
    Name += "_fastest";
  if (R.WithValue)
    Name += "_with_value";
  if (R.AfterPrimal)
    Name += "_after_primal";
  return Name;
}

std::optional<ReverseJob> meshad::resolveReverse(const DerivativeRequest &R,
                                                 const ir::Function &F,
                                                 DiagnosticSink &Diags) {
  if (!checkDefinition(R, F, Diags) || !checkReturnType(R, F, Diags))
    return std::nullopt;
  ReverseJob Job;
  if (!selectParams(R, F, Job.Selected, Diags))
    return std::nullopt;
  if (R.KeepSeeds && !F.isKernel()) {
    Diags.error(R.OptionLoc, "meshad::KeepSeeds applies to kernels; '" +
                                 F.getName() + "' is not a __global__ function");
    return std::nullopt;
  }
  if (R.StrategyLoc.isValid() && !F.isKernel()) {
    Diags.error(R.StrategyLoc, "meshad::ElementStrategy applies to kernels; '" +
                                   F.getName() +
                                   "' is not a __global__ function");
    return std::nullopt;
  }
  if (R.AfterPrimal && (!F.isKernel() || R.WithValue)) {
    Diags.error(R.OptionLoc,
                R.WithValue
                    ? "meshad::AfterPrimal and meshad::WithValue exclude each "
                      "other: after the primal its results are already there"
                    : "meshad::AfterPrimal applies to kernels; '" +
                          F.getName() + "' is not a __global__ function");
    return std::nullopt;
  }
  Job.Name = gradientName(R, F, Job.Selected);
  Job.KeepSeeds = R.KeepSeeds;
  Job.WithValue = R.WithValue;
  Job.AfterPrimal = R.AfterPrimal;
  return Job;
}
