//===- Driver/ElementStrategy.cpp - Strategies of element gradients -------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//

#include "Driver/ElementStrategy.h"
#include "Analysis/ElementMaps.h"
#include "Emit/CudaEmitter.h"
#include "GPU/GpuPasses.h"
#include "IR/PassPipeline.h"
#include "IR/Traversal.h"

using namespace meshad;
using Strategy = DerivativeRequest::Strategy;

/// Why the request gets the strategy it gets, for the remark.
static std::string whyChosen(const DerivativeRequest &R,
                             const ElementWork &Work) {
  if (R.ElementStrategy == Strategy::TwoPhase)
    return "as requested";
  if (Work.isSmall())
    return "cost model: element work " + Work.describe() +
           ", gather by recomputation would suit it but is not built yet";
  return "cost model: element work " + Work.describe();
}

namespace {
/// The selected array of a primal kernel whose adjoint goes through slots.
struct Choice {
  SlotRequest Request;
  /// "x (element map through edges (arity 2, stride 3), n elements
  /// (guard))".
  std::string Description;
  /// Why no array qualifies; empty when one does or none has a map.
  std::string WhyNot;
  bool Found = false;
};
} // namespace

/// The adjoint parameter of \p P in the gradient \p D: "_d_<name>".
static int adjointOf(const ir::Function &Primal, const ir::Var *P,
                     const ir::Function &D) {
  for (unsigned I = Primal.getNumParams(); I < D.getNumParams(); ++I)
    if (D.getParam(I)->getName() == "_d_" + P->getName())
      return I;
  return -1;
}

/// The one selected array of \p Primal read through an element map with a
/// known element count.
static Choice choose(const ir::Function &Primal, const ir::Function &D) {
  ElementMapAnalysis Maps(Primal);
  Choice C;
  for (const ir::Var *P : Primal.getParams()) {
    const ElementMapResult &M = Maps.lookup(P);
    int Adjoint = adjointOf(Primal, P, D);
    if (!M.IsMap || Adjoint < 0)
      continue;
    std::string Why = M.Maps.size() != 1
                          ? M.describe() + ": slots through one index array "
                                           "only, yet"
                      : !M.Count.Count ? M.Count.describe()
                      : C.Found ? "slots for one array only, yet (" +
                                      C.Description + " has them)"
                                : "";
    if (!Why.empty()) {
      C.WhyNot = P->getName() + ": " + Why;
      continue;
    }
    C.Found = true;
    C.Request.IndexParam = Primal.getParamIndex(M.Maps.front().IndexArray);
    C.Request.AdjointParam = Adjoint;
    C.Request.Arity = M.Maps.front().Arity;
    C.Request.Stride = M.Stride;
    C.Request.Count = M.Count.Count;
    C.Description = P->getName() + " (" + M.describe() + ", " +
                    M.Count.describe() + ")";
  }
  return C;
}

/// The primal of \p D in \p Set, and a generated function that calls or
/// launches \p D (null when none does).
static std::pair<const ir::Function *, const ir::Function *>
primalAndCaller(const DerivedFunctionSet &Set, const ir::Function &D) {
  const ir::Function *Primal = nullptr, *Caller = nullptr;
  for (const DerivedFunction &E : Set.entries()) {
    if (E.Derived == &D) {
      Primal = E.Primal;
      continue;
    }
    if (!E.Derived->getBody())
      continue;
    ir::forEachStmt(E.Derived->getBody(), [&](const ir::Stmt *S) {
      const auto *L = llvm::dyn_cast<ir::LaunchStmt>(S);
      if (L && L->getKernel() == &D)
        Caller = E.Derived;
      for (const ir::Expr *X : ir::ownExprs(S))
        ir::forEachExpr(X, [&](const ir::Expr *Sub) {
          const auto *C = llvm::dyn_cast<ir::CallExpr>(Sub);
          if (C && C->getUserCallee() == &D)
            Caller = E.Derived;
        });
    });
  }
  return {Primal, Caller};
}

void ElementStrategies::finish(const DerivativeRequest &R,
                               const DerivedFunctionSet &Set,
                               ir::Function &D) {
  auto [PrimalPtr, Caller] = primalAndCaller(Set, D);
  if (!D.isKernel() || !PrimalPtr || R.ElementStrategy == Strategy::Atomics ||
      R.ElementStrategy == Strategy::Gather ||
      (ForceAtomics && R.ElementStrategy == Strategy::Auto))
    return;
  const ir::Function &Primal = *PrimalPtr;
  const std::string &Kernel = Primal.getName();
  if (!Finished.insert(&D).second) {
    // Another request of the same gradient decided it already.
    if (R.ElementStrategy == Strategy::TwoPhase && !layoutOf(&D))
      Diags.error(R.StrategyLoc,
                  "meshad::ElementStrategy::TwoPhase does not apply to '" +
                      Kernel + "': " + WhyNots[&D]);
    return;
  }
  Choice C = choose(Primal, D);
  auto Report = [&](const std::string &WhyNot) {
    WhyNots[&D] = WhyNot.empty() ? "no array is read through an element map"
                                 : WhyNot;
    if (R.ElementStrategy == Strategy::TwoPhase)
      Diags.error(R.StrategyLoc,
                  "meshad::ElementStrategy::TwoPhase does not apply to '" +
                      Kernel + "': " + WhyNots[&D]);
    else if (!WhyNot.empty())
      Diags.remark(R.Loc, "gradient of '" + Kernel +
                              "': no atomic-free strategy: " + WhyNot);
  };
  if (C.Found && Caller)
    return Report(D.getName() + " is also launched by " + Caller->getName());
  if (!C.Found)
    return Report(C.WhyNot);
  ElementWork Work = estimateElementWork(Primal);
  ElementKernelFacts Facts;
  Facts.Primal = &Primal;
  Facts.Request = C.Request;
  Facts.Done = [&](const SlotLayout *Layout, const std::string &WhyNot) {
    if (!Layout)
      return Report(WhyNot);
    Layouts[&D] = *Layout;
    Diags.remark(R.Loc, "gradient of '" + Kernel + "': two-phase slots for " +
                            C.Description +
                            ", no atomics, bitwise reproducible (" +
                            whyChosen(R, Work) + ")");
  };
  PassPipeline Passes(Diags, Verify);
  addElementKernelPasses(Passes, M, std::move(Facts));
  Passes.run(D, &Primal);
}

const SlotLayout *ElementStrategies::layoutOf(const ir::Function *D) const {
  auto It = Layouts.find(D);
  return It == Layouts.end() ? nullptr : &It->second;
}

std::string ElementStrategies::handle(const ir::Function &D,
                                      const SlotLayout &L,
                                      const std::string &Name,
                                      const std::string &Code) {
  // The lambda names only the parameters n reads (-Wunused-parameter).
  std::set<std::string> Read;
  ir::forEachExpr(L.Request.Count, [&](const ir::Expr *E) {
    if (const auto *R = llvm::dyn_cast<ir::VarRefExpr>(E))
      Read.insert(R->getVar()->getName());
  });
  std::string Count = "[](" + CudaEmitter::emitParams(D, Read) +
                      ") -> long long { return " +
                      CudaEmitter::emitExpr(L.Request.Count) + "; }";
  std::string Type = "meshad::ElementGradient<" +
                     CudaEmitter::emitFunctionPointerType(D) + ", " +
                     std::to_string(L.Request.IndexParam) + ", " +
                     std::to_string(L.Request.AdjointParam) + ", " +
                     std::to_string(L.Request.Arity) + ", " +
                     std::to_string(L.Request.Stride) + ">";
  // Never destroyed: its device buffers may outlive the CUDA runtime (or
  // the CPU emulation's) at exit.
  return "static const " + Type + " &" + Name + " = *new " + Type + "(" +
         D.getName() + ", " + Count + ", \"" + D.getName() + "\", " + Code +
         ");\n";
}
