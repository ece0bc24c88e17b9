//===- Driver/ElementStrategy.cpp - Strategies of element gradients -------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//

#include "Driver/ElementStrategy.h"
#include "Driver/ElementCostModel.h"
#include "AD/ElementParts.h"
#include "GPU/ElementGather.h"
#include "Analysis/ElementMaps.h"
#include "Emit/CudaEmitter.h"
#include "GPU/GpuPasses.h"
#include "IR/PassPipeline.h"
#include "IR/Clone.h"
#include "IR/Traversal.h"

using namespace meshad;
using Strategy = DerivativeRequest::Strategy;

/// The name of a strategy in errors and remarks.
static const char *spelled(Strategy S) {
  switch (S) {
  case Strategy::Gather:
    return "meshad::ElementStrategy::Gather";
  case Strategy::TwoPhase:
    return "meshad::ElementStrategy::TwoPhase";
  case Strategy::Fastest:
    return "meshad::ElementStrategy::Fastest";
  default:
    return "meshad::ElementStrategy::Auto";
  }
}

/// The selected arrays of a primal kernel whose adjoints go through slots.
struct ElementStrategies::Choice {
  /// One per (array, index array), in parameter order (the cost model
  /// sees them all); Request is the first, what the gather sees.
  std::vector<SlotRequest> Requests;
  SlotRequest Request;
  unsigned XParam = 0;
  /// The primal parameters of the arrays, in the order of Requests (one
  /// per request).
  std::vector<unsigned> XParams;
  /// "x (element map through edges (arity 2, stride 3), n elements
  /// (guard))", joined by " and " for several arrays.
  std::string Description;
  /// Why a selected array read through an element map has no slots;
  /// empty when every such array has them.
  std::string WhyNot;
  bool Found = false;
};

/// The adjoint parameter of \p P in the gradient \p D: "_d_<name>".
static int adjointOf(const ir::Function &Primal, const ir::Var *P,
                     const ir::Function &D) {
  for (unsigned I = Primal.getNumParams(); I < D.getNumParams(); ++I)
    if (D.getParam(I)->getName() == "_d_" + P->getName())
      return I;
  return -1;
}

/// Why the map \p M of an array has no slots: no element count for one of
/// its index arrays.
static std::string whyNoSlots(const ElementMapResult &M) {
  for (const ElementMap &Map : M.Maps)
    if (!Map.Count.Count)
      return M.Maps.size() == 1
                 ? Map.Count.describe()
                 : "through " + Map.IndexArray->getName() + ": " +
                       Map.Count.describe();
  return "";
}

/// The selected arrays of \p Primal read through element maps with known
/// element counts: one slot request per (array, index array).
static ElementStrategies::Choice choose(const ir::Function &Primal,
                                        const ir::Function &D) {
  ElementMapAnalysis Maps(Primal);
  ElementStrategies::Choice C;
  for (const ir::Var *P : Primal.getParams()) {
    const ElementMapResult &M = Maps.lookup(P);
    int Adjoint = adjointOf(Primal, P, D);
    if (!M.IsMap || Adjoint < 0)
      continue;
    if (std::string Why = whyNoSlots(M); !Why.empty()) {
      C.WhyNot = P->getName() + ": " + Why;
      continue;
    }
    if (!C.Found)
      C.XParam = Primal.getParamIndex(P);
    C.Found = true;
    for (const ElementMap &Map : M.Maps) {
      SlotRequest R;
      R.IndexParam = Primal.getParamIndex(Map.IndexArray);
      R.AdjointParam = Adjoint;
      R.Arity = Map.Arity;
      R.Stride = M.Stride;
      R.Count = Map.Count.Count;
      R.GridStrideCount = M.GridStride && Map.Count.Form == "grid-stride loop";
      C.Requests.push_back(R);
      C.XParams.push_back(Primal.getParamIndex(P));
    }
    C.Description += std::string(C.Description.empty() ? "" : " and ") +
                     P->getName() + " (" + M.describe() + ", " +
                     M.describeCount() + ")";
  }
  if (C.Found)
    C.Request = C.Requests.front();
  return C;
}

/// What the gradient of a request that chose \p C guarantees: another
/// selected array read through an element map keeps its atomicAdds; with
/// \p MayUseAtomics, nothing (Fastest's gather, atomics at run time).
static std::string guarantee(const ElementStrategies::Choice &C,
                             bool MayUseAtomics = false) {
  if (MayUseAtomics)
    return "bitwise reproducible only where the gather runs";
  if (C.WhyNot.empty())
    return "no atomics, bitwise reproducible";
  bool Several = C.Description.find(" and ") != std::string::npos;
  return std::string("no atomics for ") + (Several ? "them" : "it") +
         ", but " + C.WhyNot +
         ": its adds stay atomic, not bitwise reproducible";
}

/// The primal of \p D in \p Set, and a generated function that calls or
/// launches \p D (null when none does).
static std::pair<ir::Function *, const ir::Function *>
primalAndCaller(const DerivedFunctionSet &Set, const ir::Function &D) {
  ir::Function *Primal = nullptr;
  const ir::Function *Caller = nullptr;
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

void ElementStrategies::report(const DerivativeRequest &R,
                               const ir::Function &Primal,
                               const ir::Function &D,
                               const std::string &WhyNot) {
  WhyNots[&D] =
      WhyNot.empty() ? "no array is read through an element map" : WhyNot;
  if (R.ElementStrategy == Strategy::TwoPhase ||
      R.ElementStrategy == Strategy::Gather)
    Diags.error(R.StrategyLoc, std::string(spelled(R.ElementStrategy)) +
                                   " does not apply to '" + Primal.getName() +
                                   "': " + WhyNots[&D]);
  else if (!WhyNot.empty())
    Diags.remark(R.Loc, "gradient of '" + Primal.getName() +
                            "': no atomic-free strategy: " + WhyNot);
}

bool ElementStrategies::tryGather(const DerivativeRequest &R,
                                  ir::Function &Primal, ir::Function &D,
                                  const Choice &C, std::string &WhyNot,
                                  std::string &Parts) {
  if (R.WithValue) {
    WhyNot = "the gradient also leaves the energy's value (meshad::WithValue)";
    return false;
  }
  for (const SlotRequest &Other : C.Requests)
    if (Other.IndexParam != C.Request.IndexParam) {
      WhyNot = "several index arrays (" + C.Description +
               "): the gather recomputes the elements of one index array, "
               "yet";
      return false;
    }
  ElementFunctions E;
  std::vector<unsigned> Adjoints;
  unsigned Seed = 0;
  if (!Extract.analyze(Primal, C.XParams, E, WhyNot) ||
      !gatherAdjoints(Primal, D, E, Adjoints, Seed, WhyNot) ||
      !Extract.extractEnergy(&Primal, C.XParams, E, WhyNot))
    return false;
  if (!Extract.derivePullback(E, R.Loc)) {
    WhyNot = "the element's pullback could not be made";
    return false;
  }
  ElementParts Counts;
  if (Baseline)
    Counts.WhyNot = "element-baseline";
  else if (E.Arrays.size() > 1)
    Counts.WhyNot = "several arrays: the parts split one local gradient";
  else
    deriveElementParts(M, Derived, Primal, E, Counts, AlwaysParts);
  Parts = Counts.describe();
  SlotLayout &L = Layouts[&D];
  L.Request = C.Request;
  L.Requests = {C.Request};
  L.Gather = true;
  L.SlotParam = buildGatherKernel(M, Derived, Primal, D, E, Adjoints, Seed);
  return true;
}

void ElementStrategies::runSlotsPass(
    const ir::Function &Primal, ir::Function &F, const Choice &C,
    std::function<void(const SlotLayout *, const std::string &)> Done) {
  ElementKernelFacts Facts;
  Facts.Primal = &Primal;
  Facts.Requests = C.Requests;
  for (SlotRequest &Request : Facts.Requests)
    Request.TryStores = !Baseline;
  Facts.Done = std::move(Done);
  PassPipeline Passes(Diags, Verify);
  addElementKernelPasses(Passes, M, std::move(Facts));
  Passes.run(F, &Primal);
}

void ElementStrategies::twoPhase(const DerivativeRequest &R,
                                 const ir::Function &Primal, ir::Function &D,
                                 const Choice &C, const std::string &Why) {
  runSlotsPass(Primal, D, C, [&](const SlotLayout *Layout,
                                 const std::string &WhyNot) {
    if (!Layout)
      return report(R, Primal, D, WhyNot);
    Layouts[&D] = *Layout;
    Diags.remark(R.Loc, "gradient of '" + Primal.getName() +
                            "': two-phase slots for " + C.Description +
                            ", " + guarantee(C) + " (" + Why + ")" +
                            (Layout->PlainStores
                                 ? "; each slot stored once, not zeroed"
                                 : ""));
    if (!Layout->PlainStores)
      Diags.remark(Layout->StoresWhere.isValid() ? Layout->StoresWhere
                                                 : R.Loc,
                   "gradient of '" + Primal.getName() +
                       "': slots zeroed and added to, not stored once: " +
                       Layout->StoresWhyNot);
  });
}

ir::Function *ElementStrategies::copyGradient(ir::Function &Primal,
                                              const ir::Function &D,
                                              const std::string &Suffix) {
  ir::Function *F = Derived.create(M, &Primal, D.getName() + Suffix,
                                   D.getReturnType());
  ir::IRCloner Clone(M);
  std::vector<ir::Var *> Params;
  for (const ir::Var *P : D.getParams())
    Params.push_back(Clone.freshVar(P));
  ir::forEachStmt(D.getBody(), [&](const ir::Stmt *S) {
    if (const auto *Decl = llvm::dyn_cast<ir::DeclStmt>(S))
      Clone.freshVar(Decl->getVar());
  });
  F->setQualifiers(D.getQualifiers());
  F->setDerivativeOrder(D.getDerivativeOrder());
  F->setParams(Params);
  F->setBody(Clone.cloneBlock(D.getBody()));
  Derived.recomputeCalls(F);
  return F;
}

bool ElementStrategies::addAlternative(const ir::Function &Primal,
                                       const ir::Function &D,
                                       ir::Function &Slots, const Choice &C) {
  bool Made = false;
  runSlotsPass(Primal, Slots, C,
               [&](const SlotLayout *Layout, const std::string &) {
                 if (!Layout)
                   return;
                 Alternatives[&D] = {&Slots, *Layout, false};
                 Made = true;
               });
  if (!Made)
    Derived.remove(&Slots);
  return Made;
}

/// The remark's words on the gather's alternative \p A of index array
/// \p Index, chosen at run time.
static std::string alternativeWords(const ElementStrategies::Alternative &A,
                                    const std::string &Index) {
  std::string Kind =
      A.Atomics ? "atomics (" + A.Kernel->getName() +
                      ", not bitwise reproducible)"
                : "two-phase slots (" + A.Kernel->getName() +
                      (A.Layout.PlainStores ? ", each slot stored once" : "") +
                      ")";
  return "or " + Kind + ", chosen at run time from the numbering of " +
         Index + " (the gather where it is local: "
         "meshad/runtime/NumberingLocality.h; strategy() says which), ";
}

void ElementStrategies::gather(const DerivativeRequest &R,
                               ir::Function &Primal, ir::Function &D,
                               const Choice &C, const std::string &Why) {
  // The gather is right for a locally numbered mesh only: keep Auto's
  // two-phase gradient, or Fastest's atomic one, for the handle to choose
  // at run time.
  bool ByModel = R.ElementStrategy == Strategy::Auto ||
                 R.ElementStrategy == Strategy::Fastest;
  bool Atomics = R.ElementStrategy == Strategy::Fastest;
  ir::Function *Other = ByModel && C.WhyNot.empty()
                            ? copyGradient(Primal, D,
                                           Atomics ? "_atomics" : "_slots")
                            : nullptr;
  std::string WhyNot, Parts;
  if (!tryGather(R, Primal, D, C, WhyNot, Parts)) {
    if (Other)
      Derived.remove(Other);
    if (R.ElementStrategy == Strategy::Gather)
      return report(R, Primal, D, WhyNot);
    return twoPhase(R, Primal, D, C,
                    Why + "; gather does not apply: " + WhyNot);
  }
  std::string Head = "gradient of '" + Primal.getName() +
                     "': gather by recomputation for " + C.Description +
                     ", one thread per vertex, ";
  if (Atomics && Other)
    Alternatives[&D] = {Other, SlotLayout(), true};
  if (Other && (Atomics || addAlternative(Primal, D, *Other, C)))
    Head += alternativeWords(
        Alternatives[&D],
        Primal.getParam(C.Request.IndexParam)->getName());
  Diags.remark(R.Loc, Head + guarantee(C, Atomics && Other) + " (" + Why +
                          "); " + Parts);
}

void ElementStrategies::finish(const DerivativeRequest &R, ir::Function &D) {
  auto [PrimalPtr, Caller] = primalAndCaller(Derived, D);
  bool ByModel = R.ElementStrategy == Strategy::Auto ||
                 R.ElementStrategy == Strategy::Fastest;
  if (!D.isKernel() || !PrimalPtr || R.ElementStrategy == Strategy::Atomics ||
      (ForceAtomics && ByModel))
    return;
  ir::Function &Primal = *PrimalPtr;
  if (!Finished.insert(&D).second) {
    // Another request of the same gradient decided it already.
    const SlotLayout *L = layoutOf(&D);
    bool Gather = L && L->Gather;
    bool Conflict =
        (R.ElementStrategy == Strategy::TwoPhase && (!L || Gather)) ||
        (R.ElementStrategy == Strategy::Gather && !Gather);
    std::string Option = spelled(R.ElementStrategy);
    if (Conflict && !L)
      Diags.error(R.StrategyLoc, Option + " does not apply to '" +
                                     Primal.getName() + "': " + WhyNots[&D]);
    else if (Conflict)
      Diags.error(R.StrategyLoc, Option + ": another request of '" +
                                     Primal.getName() + "' got " +
                                     (Gather ? "gather by recomputation"
                                             : "two-phase slots"));
    return;
  }
  Choice C = choose(Primal, D);
  if (C.Found && Caller)
    return report(R, Primal, D,
                  D.getName() + " is also launched by " + Caller->getName());
  if (!C.Found || (!ByModel && !C.WhyNot.empty()))
    return report(R, Primal, D, C.WhyNot);
  std::vector<ElementMapShape> Shapes;
  for (const SlotRequest &Request : C.Requests)
    Shapes.push_back({Request.Arity, Request.Stride});
  ElementCost Cost = estimateElementCost(
      estimateElementWork(Primal), Shapes,
      /*AllowAtomics=*/R.ElementStrategy == Strategy::Fastest);
  std::string Why = ByModel ? "cost model: " + Cost.describe() : "as requested";
  if (ByModel && Cost.Choice == ElementCost::Atomics) {
    Diags.remark(R.Loc, "gradient of '" + Primal.getName() +
                            "': atomics for " + C.Description +
                            ", not bitwise reproducible (" + Why + ")");
    return;
  }
  bool WantGather = R.ElementStrategy == Strategy::Gather ||
                    (ByModel && Cost.Choice == ElementCost::Gather);
  if (!WantGather)
    return twoPhase(R, Primal, D, C, Why);
  gather(R, Primal, D, C, Why);
}

const SlotLayout *ElementStrategies::layoutOf(const ir::Function *D) const {
  auto It = Layouts.find(D);
  return It == Layouts.end() ? nullptr : &It->second;
}

/// The element count of \p R as a lambda over the parameters of \p D
/// (naming only those it reads: -Wunused-parameter).
static std::string countFunction(const ir::Function &D, const SlotRequest &R) {
  std::set<std::string> Read;
  ir::forEachExpr(R.Count, [&](const ir::Expr *E) {
    if (const auto *Ref = llvm::dyn_cast<ir::VarRefExpr>(E))
      Read.insert(Ref->getVar()->getName());
  });
  return "[](" + CudaEmitter::emitParams(D, Read) +
         ") -> long long { return " + CudaEmitter::emitExpr(R.Count) + "; }";
}

/// The handle of a two-phase kernel with several slot arrays:
/// meshad::ElementGradientSlots<Kernel, meshad::SlotArray<...>...>.
static std::string slotsHandle(const ir::Function &D, const SlotLayout &L,
                               const std::string &Name,
                               const std::string &Code) {
  std::string Type = "meshad::ElementGradientSlots<" +
                     CudaEmitter::emitFunctionPointerType(D);
  std::string Counts;
  for (const SlotRequest &R : L.Requests) {
    Type += ", meshad::SlotArray<" + std::to_string(R.IndexParam) + ", " +
            std::to_string(R.AdjointParam) + ", " + std::to_string(R.Arity) +
            ", " + std::to_string(R.Stride) + ">";
    Counts += std::string(Counts.empty() ? "" : ", ") + countFunction(D, R);
  }
  Type += ">";
  return "static const " + Type + " &" + Name + " = *new " + Type + "(" +
         D.getName() + ", {" + Counts + "}, \"" + D.getName() + "\", " +
         Code + (L.PlainStores ? ", true" : "") +
         (L.EveryLaunchCovers ? ", true" : "") + ");\n";
}

ir::Function *ElementStrategies::alternativeOf(const ir::Function *D) const {
  auto It = Alternatives.find(D);
  return It == Alternatives.end() ? nullptr : It->second.Kernel;
}

/// The handle of a gather \p D with the alternative \p A, chosen at run
/// time: meshad::ElementGradientChoice<Gather, Other, Index, Adjoint, c, s>
/// for two-phase slots of one array, with a last argument
/// meshad::ElementGradientSlots<...> for several arrays, or
/// meshad::ElementGradientAtomics<Other> for atomics.
static std::string choiceHandle(const ir::Function &D, const SlotLayout &G,
                                const ElementStrategies::Alternative &A,
                                const std::string &Name,
                                const std::string &Code) {
  const SlotRequest &R = G.Request;
  const ir::Function &Other = *A.Kernel;
  const SlotLayout &L = A.Layout;
  std::string OtherPtr = CudaEmitter::emitFunctionPointerType(Other);
  std::string Type = "meshad::ElementGradientChoice<" +
                     CudaEmitter::emitFunctionPointerType(D) + ", " +
                     OtherPtr + ", " + std::to_string(R.IndexParam) + ", " +
                     std::to_string(R.AdjointParam) + ", " +
                     std::to_string(R.Arity) + ", " +
                     std::to_string(R.Stride);
  std::string OtherCount;
  if (A.Atomics) {
    Type += ", meshad::ElementGradientAtomics<" + OtherPtr + ">";
    OtherCount = "nullptr";
  } else if (L.Requests.size() > 1) {
    Type += ", meshad::ElementGradientSlots<" + OtherPtr;
    for (const SlotRequest &S : L.Requests) {
      Type += ", meshad::SlotArray<" + std::to_string(S.IndexParam) + ", " +
              std::to_string(S.AdjointParam) + ", " +
              std::to_string(S.Arity) + ", " + std::to_string(S.Stride) + ">";
      OtherCount += std::string(OtherCount.empty() ? "{" : ", ") +
                    countFunction(Other, S);
    }
    Type += ">";
    OtherCount += "}";
  } else {
    OtherCount = countFunction(Other, R);
  }
  Type += ">";
  std::string Flags = L.EveryLaunchCovers ? ", true, true"
                      : L.PlainStores     ? ", true"
                                          : "";
  return "static const " + Type + " &" + Name + " = *new " + Type + "(" +
         D.getName() + ", " + Other.getName() + ", " + countFunction(D, R) +
         ", " + OtherCount + ", \"" + D.getName() + "\", " + Code + Flags +
         ");\n";
}

std::string ElementStrategies::handle(const ir::Function &D,
                                      const SlotLayout &L,
                                      const std::string &Name,
                                      const std::string &Code) const {
  if (L.Requests.size() > 1)
    return slotsHandle(D, L, Name, Code);
  auto Other = Alternatives.find(&D);
  if (Other != Alternatives.end())
    return choiceHandle(D, L, Other->second, Name, Code);
  std::string Count = countFunction(D, L.Request);
  std::string Type = "meshad::ElementGradient<" +
                     CudaEmitter::emitFunctionPointerType(D) + ", " +
                     std::to_string(L.Request.IndexParam) + ", " +
                     std::to_string(L.Request.AdjointParam) + ", " +
                     std::to_string(L.Request.Arity) + ", " +
                     std::to_string(L.Request.Stride) +
                     (L.Gather ? ", meshad::ElementStrategy::Gather" : "") +
                     ">";
  // Never destroyed: its device buffers may outlive the CUDA runtime (or
  // the CPU emulation's) at exit.
  return "static const " + Type + " &" + Name + " = *new " + Type + "(" +
         D.getName() + ", " + Count + ", \"" + D.getName() + "\", " + Code +
         (L.PlainStores ? ", true" : "") +
         (L.EveryLaunchCovers ? ", true" : "") + ");\n";
}
