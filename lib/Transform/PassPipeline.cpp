//===- Transform/PassPipeline.cpp - Passes over a function ----------------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//

#include "Transform/PassPipeline.h"

#include <algorithm>

using namespace meshad;

PassPipeline &PassPipeline::add(std::string Name, PassFn Run,
                                ir::VerifyStage After) {
  Passes.push_back({std::move(Name), std::move(Run), After});
  return *this;
}

bool PassPipeline::run(ir::Function &F, const ir::Function *Primal) const {
  for (const Pass &P : Passes) {
    P.Run(F);
    // After an error, functions may be partial: nothing is emitted anyway.
    if (Verify && !Diags.hasErrors() &&
        !verifyGenerated(F, Primal, P.After, P.Name, Diags))
      return false;
  }
  return true;
}

std::vector<std::string> PassPipeline::getPassNames() const {
  std::vector<std::string> Names;
  for (const Pass &P : Passes)
    Names.push_back(P.Name);
  return Names;
}

bool meshad::verifyGenerated(const ir::Function &D, const ir::Function *Primal,
                             ir::VerifyStage Stage, llvm::StringRef After,
                             DiagnosticSink &Diags) {
  std::vector<std::string> Problems, Own;
  if (ir::verifyFunction(D, Stage, Problems))
    return true;
  if (Primal)
    ir::verifyFunction(*Primal, ir::VerifyStage::Transformed, Own);
  std::string Errors;
  for (const std::string &Problem : Problems)
    if (std::find(Own.begin(), Own.end(), Problem) == Own.end())
      Errors += (Errors.empty() ? "" : "; ") + Problem;
  if (Errors.empty())
    return true;
  clang::SourceLocation Loc =
      D.getLoc().isValid() || !Primal ? D.getLoc() : Primal->getLoc();
  std::string Where =
      After.empty() ? "" : " after '" + After.str() + "'";
  Diags.error(Loc, "meshad internal error: generated code for '" +
                       D.getName() + "' is malformed" + Where + ": " + Errors);
  return false;
}

bool meshad::shouldVerify(bool Requested) {
#ifndef NDEBUG
  (void)Requested;
  return true;
#else
  return Requested;
#endif
}
