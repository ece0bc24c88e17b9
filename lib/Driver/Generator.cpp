//===- Driver/Generator.cpp - From a parsed TU to generated source --------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The pipeline: plan the requests, lower each requested function, resolve
/// its seeds, run the mode's transformer, simplify every generated function
/// (unless -fplugin-arg-meshad-no-simplify), then place the emitted text:
///
///   <primal's first declaration, ending on line N-1>
///   #line N-1 "file.cu"
///   prototypes of the derivatives of this primal
///   one meshad::Derived handle per requested derivative (+ its source text)
///   #line N "file.cu"
///   ...
///   <primal's definition>
///   #line M-1 "file.cu"
///   definitions of the derivatives of this primal, each statement after a
///   #line naming the user's construct it came from
///   #line M "file.cu"
///
/// and each request call meshad::differentiate(f, "x") is completed to
/// meshad::differentiate(f, "x", <handle>).
///
//===----------------------------------------------------------------------===//

#include "Driver/Generator.h"
#include "Driver/ElementStrategy.h"
#include "Driver/GeneratedNames.h"
#include "Driver/HessianRequest.h"
#include "Driver/Placement.h"
#include "Driver/RequestResolver.h"
#include "Emit/CudaEmitter.h"
#include "IR/DynamicShared.h"
#include "IR/NameScope.h"
#include "IR/Verifier.h"
#include "Lower/ASTLowering.h"
#include "Plan/RequestPlanner.h"
#include "AD/Analysis/ReverseNeeds.h"
#include "Simplify/Simplifier.h"
#include "AD/Forward/ForwardMode.h"
#include "AD/Hvp.h"
#include "IR/PassPipeline.h"
#include "IR/Traversal.h"
#include "AD/Reverse/ReverseMode.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"

#include <algorithm>
#include <map>
#include <set>

using namespace meshad;
using namespace clang;

namespace {

/// Generated text waiting at one offset of the main file.
struct Slot {
  std::string Prototypes;
  std::string Handles;
  std::string Definitions;
};

/// Collects the generated text per insertion offset and the call rewrites.
class EditPlan {
public:
  EditPlan(ASTContext &Ctx, DiagnosticSink &Diags,
           const DerivedFunctionSet &Derived, const GeneratorOptions &Opts,
           ir::NameScope &TUNames, const ElementStrategies &Strategies)
      : Ctx(Ctx), Diags(Diags), Derived(Derived), Opts(Opts), Where(Ctx),
        TUNames(TUNames), Strategies(Strategies) {}

  /// Places every generated function (prototype and definition).
  void placeFunctions(std::string &Dump);
  /// Hessian handles also carry their pattern and packed variant.
  void setHessians(const HessianTransformer *H,
                   const ElementHessianBuilder *E) {
    Hessians = H;
    ElementHessians = E;
  }
  /// Adds the handle of a requested derivative and completes its call.
  void placeRequest(const DerivativeRequest &R, ir::Function *D);
  std::vector<TextEdit> takeEdits();

private:
  std::string handleFor(ir::Function *D, const FunctionDecl *Primal);
  std::optional<std::string> qualifierOf(const FunctionDecl *FD,
                                         SourceLocation Loc);
  std::string wrap(const std::string &Text, unsigned Offset) const;

  ASTContext &Ctx;
  DiagnosticSink &Diags;
  const DerivedFunctionSet &Derived;
  const GeneratorOptions &Opts;
  SourcePlacement Where;
  /// The names declared at namespace scope (handles take free ones).
  ir::NameScope &TUNames;
  const HessianTransformer *Hessians = nullptr;
  const ElementHessianBuilder *ElementHessians = nullptr;
  /// The two-phase element kernels, completed with their own handles.
  const ElementStrategies &Strategies;
  std::map<unsigned, Slot> Slots;
  std::map<const ir::Function *, std::string> Handles;
  std::map<const ir::Function *, std::string> Definitions;
  std::vector<TextEdit> CallEdits;
  /// Where `#include <meshad/ElementGradient.h>` goes when an element
  /// gradient's handle needs it: after the main file's include of the API.
  std::optional<unsigned> ElementHeaderAt;
};

} // namespace

void EditPlan::placeFunctions(std::string &Dump) {
  for (const DerivedFunction &Entry : Derived.entries()) {
    const auto *FD =
        static_cast<const FunctionDecl *>(Entry.Primal->getSourceDecl());
    bool OutOfLine = SourcePlacement::isDefinedOutOfLine(FD);
    std::string Def = CudaEmitter::emitDefinition(*Entry.Derived, OutOfLine);
    Definitions[Entry.Derived] = Def;
    Slots[Where.prototypeOffset(FD)].Prototypes +=
        CudaEmitter::emitPrototype(*Entry.Derived);
    // The compiled text maps each statement to the user's construct.
    Slots[Where.definitionOffset(FD)].Definitions +=
        (Opts.LineDirectives ? CudaEmitter::emitDefinition(*Entry.Derived,
                                                           OutOfLine, &Where)
                             : Def) +
        "\n";
    Dump += Def + "\n";
  }
}

/// A C++ raw string literal holding \p Text.
static std::string rawString(const std::string &Text) {
  std::string Delim = "meshad";
  while (Text.find(")" + Delim + "\"") != std::string::npos)
    Delim += "_";
  return "R\"" + Delim + "(" + Text + ")" + Delim + "\"";
}

/// A meshad::HessianDerived handle named \p Name, with its pattern arrays.
static std::string hessianHandle(const std::string &Name, const ir::Function &D,
                                 const HessianPatternInfo &P,
                                 const std::string &Ptr,
                                 const std::string &Code) {
  std::string Values, Signs;
  for (unsigned E = 0; E < P.Value.size(); ++E) {
    Values += (E ? ", " : "") + std::to_string(P.Value[E]);
    Signs += (E ? ", " : "") + std::to_string(P.Sign[E]);
  }
  std::string Packed = Ptr == "nullptr" ? Ptr : P.Packed->getName();
  return "static const int " + Name + "_values[] = {" + Values + "};\n" +
         "static const signed char " + Name + "_signs[] = {" + Signs +
         "};\n" + "static const meshad::HessianDerived<" +
         CudaEmitter::emitFunctionPointerType(D) + ", " +
         CudaEmitter::emitFunctionPointerType(*P.Packed) + "> " + Name + "(" +
         Ptr + ", \"" + D.getName() + "\", " + Code + ", " + Packed +
         ", meshad::HessianPattern{" + std::to_string(P.Size) + ", " +
         std::to_string(P.NumValues) + ", " + Name + "_values, " + Name +
         "_signs});\n";
}

/// A meshad::ElementHessian handle named \p Name of the kernel \p D.
static std::string elementHessianHandle(const std::string &Name,
                                        const ir::Function &D,
                                        const ElementHessianInfo &E,
                                        const std::string &Code) {
  // The lambda names only the parameters n reads (-Wunused-parameter).
  std::set<std::string> Read;
  ir::forEachExpr(E.Count, [&](const ir::Expr *X) {
    if (const auto *R = llvm::dyn_cast<ir::VarRefExpr>(X))
      Read.insert(R->getVar()->getName());
  });
  std::string Count = "[](" + CudaEmitter::emitParams(D, Read) +
                      ") -> long long { return " +
                      CudaEmitter::emitExpr(E.Count) + "; }";
  std::string Type = "meshad::ElementHessian<" +
                     CudaEmitter::emitFunctionPointerType(D) + ", " +
                     std::to_string(E.IndexParam) + ", " +
                     std::to_string(E.Arity) + ", " +
                     std::to_string(E.Stride) + ">";
  // Never destroyed: its device buffers may outlive the CUDA runtime.
  return "static const " + Type + " &" + Name + " = *new " + Type + "(" +
         D.getName() + ", " + Count + ", \"" + D.getName() + "\", " + Code +
         ");\n";
}

/// ", 2" when derived kernel \p D or a function it calls keeps derivatives
/// in the upper half of its dynamic shared memory (IR/DynamicShared.h):
/// execute_kernel launches it with that many times the bytes it is given.
static std::string sharedFactor(const DerivedFunctionSet &Derived,
                                ir::Function &D) {
  if (!D.isKernel())
    return "";
  unsigned Factor = 1;
  for (ir::Function *F : Derived.closure(&D))
    Factor = std::max(Factor, ir::sharedShadowFactor(*F));
  return Factor == 1 ? "" : ", " + std::to_string(Factor);
}

std::string EditPlan::handleFor(ir::Function *D, const FunctionDecl *Primal) {
  auto It = Handles.find(D);
  if (It != Handles.end())
    return It->second;
  std::string Name = TUNames.numbered("meshad_request_");
  std::string Code;
  std::vector<ir::Function *> Closure = Derived.closure(D);
  // A gather's two-phase alternative, chosen at run time, is its code too.
  if (ir::Function *Alternative = Strategies.alternativeOf(D))
    for (ir::Function *F : Derived.closure(Alternative))
      if (std::find(Closure.begin(), Closure.end(), F) == Closure.end())
        Closure.push_back(F);
  for (ir::Function *F : Closure)
    Code += Definitions[F] + "\n";
  // Device-only derivatives are called by name from device code.
  bool HostCallable = D->getTarget() != ir::CudaTarget::Device;
  std::string Ptr = HostCallable ? D->getName() : "nullptr";
  const HessianPatternInfo *P = Hessians ? Hessians->patternOf(D) : nullptr;
  std::string &Out = Slots[Where.prototypeOffset(Primal)].Handles;
  if (P)
    Out += hessianHandle(Name, *D, *P, Ptr, rawString(Code));
  else if (const ElementHessianInfo *E =
               ElementHessians ? ElementHessians->infoOf(D) : nullptr)
    Out += elementHessianHandle(Name, *D, *E, rawString(Code));
  else if (const SlotLayout *L = Strategies.layoutOf(D))
    Out += Strategies.handle(*D, *L, Name, rawString(Code));
  else
    Out += "static const meshad::Derived<" +
           CudaEmitter::emitFunctionPointerType(*D) +
           (D->isKernel() ? ", true" : "") + "> " + Name + "(" + Ptr + ", \"" +
           D->getName() + "\", " + rawString(Code) + sharedFactor(Derived, *D) +
           ");\n";
  Handles[D] = Name;
  return Name;
}

std::optional<std::string> EditPlan::qualifierOf(const FunctionDecl *FD,
                                                 SourceLocation Loc) {
  std::string Qual;
  for (const DeclContext *DC = FD->getDeclContext(); !DC->isTranslationUnit();
       DC = DC->getParent()) {
    if (const auto *NS = dyn_cast<NamespaceDecl>(DC)) {
      if (!NS->isAnonymousNamespace())
        Qual = NS->getNameAsString() + "::" + Qual;
      continue;
    }
    if (isa<LinkageSpecDecl>(DC))
      continue;
    Diags.error(Loc, "meshad differentiates namespace-scope functions; '" +
                         FD->getNameAsString() +
                         "' is a member of a class or function");
    return std::nullopt;
  }
  return "::" + Qual;
}

void EditPlan::placeRequest(const DerivativeRequest &R, ir::Function *D) {
  if (!R.Call)
    return; // Annotation: the function is generated, nothing to complete.
  std::optional<std::string> Qual = qualifierOf(R.Function, R.Loc);
  std::optional<unsigned> Off = Where.offsetOf(R.Call->getRParenLoc());
  if (!Qual)
    return;
  if (!Off) {
    Diags.error(R.Loc, "meshad requests must be written in the main file");
    return;
  }
  std::string Handle = handleFor(D, R.Function);
  // Only element gradients pay for their header (the incidence, Thrust's
  // sort): it is included after the API's include, before any handle.
  if (Strategies.layoutOf(D) && !ElementHeaderAt) {
    const FunctionDecl *Api = R.Call->getDirectCallee();
    ElementHeaderAt = Api ? Where.includeOffset(Api) : std::nullopt;
    if (!ElementHeaderAt)
      ElementHeaderAt = 0;
  }
  bool Defaulted = isa<CXXDefaultArgExpr>(R.Call->getArg(1));
  CallEdits.push_back(
      {*Off, 0, std::string(Defaulted ? ", \"\"" : "") + ", " + *Qual + Handle});
}

std::string EditPlan::wrap(const std::string &Text, unsigned Offset) const {
  // Generated text starts on a line of its own (at the end of a file without
  // a final newline, or after a declaration followed by code on its line).
  std::string Prefix =
      Offset > 0 && Where.text()[Offset - 1] != '\n' ? "\n" : "";
  if (!Opts.LineDirectives)
    return Prefix + Text;
  // The prototypes and handles map to the line before the insertion (the
  // end of the primal's declaration); definitions carry their own lines.
  unsigned Line = Where.lineAt(Offset);
  return Prefix + CudaEmitter::lineDirective(Line > 1 ? Line - 1 : 1,
                                             Where.fileName()) +
         Text + CudaEmitter::lineDirective(Line, Where.fileName());
}

std::vector<TextEdit> EditPlan::takeEdits() {
  std::vector<TextEdit> Edits;
  // A derivative keeps every parameter of its primal, used or not (a
  // gradient kernel has no use for an output's primal pointer): -Wextra
  // stays quiet about them in the compiled definitions.
  const std::string Quiet = "#pragma GCC diagnostic push\n"
                            "#pragma GCC diagnostic ignored "
                            "\"-Wunused-parameter\"\n";
  for (auto &[Offset, S] : Slots) {
    std::string Defs = S.Definitions.empty()
                           ? ""
                           : Quiet + S.Definitions +
                                 "#pragma GCC diagnostic pop\n";
    Edits.push_back({Offset, 0, wrap(S.Prototypes + S.Handles + Defs, Offset)});
  }
  if (ElementHeaderAt)
    Edits.push_back({*ElementHeaderAt, 0,
                     wrap("#include <meshad/ElementGradient.h>\n",
                          *ElementHeaderAt)});
  Edits.insert(Edits.end(), CallEdits.begin(), CallEdits.end());
  return Edits;
}

/// A meshad::hvp request: the parameters of a gradient request, less the
/// arrays \p F writes when the spec is empty (every input).
static ir::Function *deriveHvp(HvpTransformer &Hvp, const DerivativeRequest &R,
                               ir::Function &F, DiagnosticSink &Diags) {
  if (R.KeepSeeds || R.WithValue) {
    Diags.error(R.OptionLoc, "meshad::hvp takes no option: output seeds "
                             "are always only read");
    return nullptr;
  }
  using Strategy = DerivativeRequest::Strategy;
  if (R.ElementStrategy == Strategy::Gather ||
      R.ElementStrategy == Strategy::TwoPhase) {
    // Issue 11: the element strategies exist for gradients only.
    Diags.error(R.StrategyLoc,
                std::string("meshad::ElementStrategy::") +
                    (R.ElementStrategy == Strategy::Gather ? "Gather"
                                                           : "TwoPhase") +
                    " applies to gradients only: the HVP of an element "
                    "kernel by gather or two-phase slots is not built yet "
                    "(meshad::hvp adds with atomics; meshad::hessian(kernel, "
                    "\"x\") gives the element Hessians without them)");
    return nullptr;
  }
  std::optional<ReverseJob> Job = resolveReverse(R, F, Diags);
  if (!Job)
    return nullptr;
  if (R.Items.empty())
    for (unsigned I = 0; I < F.getNumParams(); ++I)
      if (F.getParam(I)->getType()->isPointer() &&
          writesMemoryOf(F.getBody(), F.getParam(I)))
        Job->Selected[I] = false;
  return Hvp.deriveHvp(&F, Job->Selected,
                       derivedName(F, Job->Selected, "_hvp"), R.Loc);
}

/// Verifies the generated functions from the \p From-th on, as \p After
/// left them; reports each malformed one as an internal error at its
/// location. Returns the number of generated functions (the next \p From).
/// A differentiated function's own parameters keep their C++ types in the
/// derivative's signature: a non-const reference among them is an error
/// (its callees' references are lowered as pointers).
static bool checkRequestParams(const ir::Function &F, DiagnosticSink &Diags) {
  for (const ir::Var *P : F.getParams())
    if (P->isReferenceParam()) {
      Diags.error(F.getLoc(), "meshad: parameter '" + P->getName() + "' of '" +
                                  F.getName() +
                                  "' is a non-const reference; a function "
                                  "that is differentiated takes a pointer "
                                  "(its callees may take references)");
      return false;
    }
  return true;
}

static size_t verifyDerived(const DerivedFunctionSet &Derived, size_t From,
                            ir::VerifyStage Stage, llvm::StringRef After,
                            DiagnosticSink &Diags) {
  const std::vector<DerivedFunction> &Entries = Derived.entries();
  for (size_t I = From; I < Entries.size(); ++I)
    verifyGenerated(*Entries[I].Derived, Entries[I].Primal, Stage, After,
                    Diags);
  return Entries.size();
}

/// The name of the transform that serves \p Mode, for internal errors.
static llvm::StringRef transformName(DiffMode Mode) {
  switch (Mode) {
  case DiffMode::Forward:
    return "forward mode";
  case DiffMode::Hvp:
    return "hvp";
  case DiffMode::Hessian:
    return "hessian";
  default:
    return "reverse mode";
  }
}

namespace {

/// The lowering and the transformers of one translation unit, shared by
/// all its requests (a callee's derivatives are made once).
struct Transformers {
  Transformers(ASTContext &Ctx, ir::Module &M, DiagnosticSink &Diags,
               const GeneratorOptions &Opts, bool Verify)
      : Lower(Ctx, M, Diags), Forward(M, Diags, Derived),
        Reverse(M, Diags, Derived), Hvp(M, Diags, Derived, Forward, Reverse),
        Hessian(M, Diags, Hvp, Derived),
        ElementHessians(M, Diags, Hessian, Reverse, Derived),
        SparseLoops(M, Diags, Hessian, Derived),
        Strategies(M, Diags, Verify, Reverse, Derived) {
    Reverse.setForceAtomics(Opts.ForceAtomics);
    Reverse.setUniformSumsPerWarp(Opts.UniformSumsPerWarp);
    Reverse.setOwnershipCrossCheck(Opts.OwnershipCrossCheck);
    Reverse.setVerify(Verify);
    Strategies.setForceAtomics(Opts.ForceAtomics);
    Strategies.setBaseline(Opts.ElementBaseline);
    Strategies.setAlwaysParts(Opts.ElementPartsAlways);
  }

  ASTLowering Lower;
  DerivedFunctionSet Derived;
  ForwardModeTransformer Forward;
  ReverseModeTransformer Reverse;
  HvpTransformer Hvp;
  HessianTransformer Hessian;
  ElementHessianBuilder ElementHessians;
  SparseLoopHessianBuilder SparseLoops;
  ElementStrategies Strategies;
};

/// A request and the function derived for it.
using DerivedRequest = std::pair<const DerivativeRequest *, ir::Function *>;

} // namespace

/// The derivative request \p R asks for, of its lowered function \p F, by
/// the transformer of its mode; null after an error.
static ir::Function *deriveRequest(Transformers &T, const DerivativeRequest &R,
                                   ir::Function &F, DiagnosticSink &Diags) {
  if (R.Mode == DiffMode::Forward) {
    if (std::optional<ForwardJob> Job = resolveForward(R, F, Diags))
      return T.Forward.deriveRequest(&F, Job->Seeds, Job->Name);
    return nullptr;
  }
  if (R.Mode == DiffMode::Hvp)
    return deriveHvp(T.Hvp, R, F, Diags);
  if (R.Mode == DiffMode::Hessian)
    return deriveHessianRequest(T.Hessian, T.ElementHessians, T.SparseLoops,
                                R, F, Diags);
  if (std::optional<ReverseJob> Job = resolveReverse(R, F, Diags))
    return T.Reverse.deriveGradient(&F, Job->Selected, Job->Name, R.Loc,
                                    Job->KeepSeeds, Job->WithValue,
                                    Job->AfterPrimal);
  return nullptr;
}

/// Lowers and derives every request, in order; the transformed functions
/// are verified after each request when \p Verify.
static std::vector<DerivedRequest>
deriveRequests(Transformers &T, const std::vector<DerivativeRequest> &Requests,
               bool Verify, DiagnosticSink &Diags) {
  std::vector<DerivedRequest> Done;
  size_t Verified = 0;
  for (const DerivativeRequest &R : Requests) {
    ir::Function *F = T.Lower.lower(R.Function);
    if (!F || !checkRequestParams(*F, Diags))
      continue;
    if (ir::Function *D = deriveRequest(T, R, *F, Diags))
      Done.push_back({&R, D});
    // A transform that reported an error may leave partial functions.
    if (Verify && !Diags.hasErrors())
      Verified = verifyDerived(T.Derived, Verified,
                               ir::VerifyStage::Transformed,
                               transformName(R.Mode), Diags);
  }
  // The lambdas that lowered code calls: generated code calls their
  // primals, emitted beside it (Lower/LowerFunctors.cpp).
  for (ir::Function *L : T.Lower.getLambdas())
    if (L->getBody())
      T.Derived.add(DerivedFunctionSet::keyFor(L, L->getName()), L, L);
  // Once every request is derived: a gradient kernel that other generated
  // code launches keeps its signature.
  for (auto &[R, D] : Done)
    if (R->Mode == DiffMode::Reverse && !Diags.hasErrors())
      T.Strategies.finish(*R, *D);
  return Done;
}

/// What every generated function goes through last, whatever its mode:
/// the simplifier (unless turned off). False after an error.
static bool finishDerived(ir::Module &M, const DerivedFunctionSet &Derived,
                          const GeneratorOptions &Opts, bool Verify,
                          DiagnosticSink &Diags) {
  Simplifier Simplify(M);
  PassPipeline Finish(Diags, Verify);
  if (Opts.Simplify)
    Finish.add(
        "simplify", [&](ir::Function &F) { Simplify.run(F); },
        ir::VerifyStage::Lowered);
  for (const DerivedFunction &Entry : Derived.entries())
    Finish.run(*Entry.Derived, Entry.Primal);
  return !Diags.hasErrors();
}

GenerationResult meshad::generateDerivatives(ASTContext &Ctx,
                                             DiagnosticSink &Diags,
                                             const GeneratorOptions &Opts) {
  GenerationResult Result;
  Diags.setRemarksEnabled(Opts.Remarks);
  std::vector<DerivativeRequest> Requests = RequestPlanner(Ctx, Diags).plan();
  Result.HasRequests = !Requests.empty() || Diags.hasErrors();
  if (Requests.empty())
    return Result;

  ir::Module M;
  const bool Verify = shouldVerify(Opts.Verify);
  Transformers T(Ctx, M, Diags, Opts, Verify);
  std::vector<DerivedRequest> Done =
      deriveRequests(T, Requests, Verify, Diags);
  if (Diags.hasErrors() || !checkHiddenCallees(T.Derived, Diags))
    return Result;
  if (!finishDerived(M, T.Derived, Opts, Verify, Diags))
    return Result;

  ir::NameScope TUNames;
  reserveNamespaceScopeNames(Ctx.getTranslationUnitDecl(), TUNames);
  uniqueFunctionNames(Ctx, T.Derived, TUNames);
  // What the emitter receives (the GPU lowering of accumulations runs
  // before this point).
  if (Verify) {
    verifyDerived(T.Derived, 0, ir::VerifyStage::Lowered, "", Diags);
    if (Diags.hasErrors())
      return Result;
  }
  EditPlan Plan(Ctx, Diags, T.Derived, Opts, TUNames, T.Strategies);
  Plan.setHessians(&T.Hessian, &T.ElementHessians);
  Plan.placeFunctions(Result.Dump);
  for (auto &[R, D] : Done)
    Plan.placeRequest(*R, D);
  Result.Edits = Plan.takeEdits();
  return Result;
}
