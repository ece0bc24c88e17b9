//===- Plan/RequestPlanner.cpp - Finding derivative requests --------------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//

#include "Plan/RequestPlanner.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "llvm/ADT/StringRef.h"

using namespace meshad;
using namespace clang;

const char *meshad::getModeName(DiffMode M) {
  switch (M) {
  case DiffMode::Forward:
    return "forward";
  case DiffMode::Reverse:
    return "reverse";
  case DiffMode::Hvp:
    return "Hessian-vector product";
  case DiffMode::Hessian:
    return "Hessian";
  }
  return "?";
}

namespace {

/// Visits the translation unit (not template instantiations: a request in a
/// template pattern has no single function to differentiate).
class RequestVisitor : public RecursiveASTVisitor<RequestVisitor> {
public:
  RequestVisitor(ASTContext &Ctx, DiagnosticSink &Diags,
                 std::vector<DerivativeRequest> &Out)
      : Ctx(Ctx), Diags(Diags), Out(Out) {}

  bool VisitCallExpr(clang::CallExpr *CE);
  bool VisitFunctionDecl(FunctionDecl *FD);

private:
  std::optional<DiffMode> requestMode(const clang::CallExpr *CE);
  bool parseSpec(DerivativeRequest &R, StringRef Spec);
  /// True for a call that already has its meshad::Derived handle.
  static bool isCompleted(const clang::CallExpr *CE);
  /// Reads the meshad::GradientOption argument \p Arg into \p R.
  bool parseOption(DerivativeRequest &R, const Expr *Arg);

  ASTContext &Ctx;
  DiagnosticSink &Diags;
  std::vector<DerivativeRequest> &Out;
};

} // namespace

std::optional<DiffMode>
RequestVisitor::requestMode(const clang::CallExpr *CE) {
  const FunctionDecl *Callee = CE->getDirectCallee();
  if (!Callee || !Callee->getIdentifier())
    return std::nullopt;
  const auto *NS = dyn_cast<NamespaceDecl>(Callee->getDeclContext());
  if (!NS || NS->getName() != "meshad" ||
      !isa<TranslationUnitDecl>(NS->getDeclContext()))
    return std::nullopt;
  StringRef Name = Callee->getName();
  if (Name == "differentiate")
    return DiffMode::Forward;
  if (Name == "gradient")
    return DiffMode::Reverse;
  if (Name == "hvp")
    return DiffMode::Hvp;
  if (Name == "hessian")
    return DiffMode::Hessian;
  return std::nullopt;
}

bool RequestVisitor::parseSpec(DerivativeRequest &R, StringRef Spec) {
  std::string Error;
  auto Items = parseArgSpec(Spec.str(), Error);
  if (!Items) {
    Diags.error(R.Loc, "invalid argument spec \"" + Spec.str() + "\": " +
                           Error);
    return false;
  }
  R.Spec = Spec.str();
  R.Items = std::move(*Items);
  return true;
}

bool RequestVisitor::VisitCallExpr(clang::CallExpr *CE) {
  std::optional<DiffMode> Mode = requestMode(CE);
  if (!Mode)
    return true;
  DerivativeRequest R;
  R.Mode = *Mode;
  R.Call = CE;
  R.Loc = CE->getBeginLoc();
  if (isCompleted(CE))
    return true; // The plugin already gave it its handle.
  const Expr *Fn = CE->getArg(0)->IgnoreParenImpCasts();
  if (const auto *U = dyn_cast<UnaryOperator>(Fn))
    if (U->getOpcode() == UO_AddrOf)
      Fn = U->getSubExpr()->IgnoreParenImpCasts();
  const auto *Ref = dyn_cast<DeclRefExpr>(Fn);
  const auto *FD = Ref ? dyn_cast<FunctionDecl>(Ref->getDecl()) : nullptr;
  if (!FD) {
    Diags.error(CE->getArg(0)->getBeginLoc(),
                "the first argument of meshad::" +
                    CE->getDirectCallee()->getNameAsString() +
                    " must name a function");
    return true;
  }
  const auto *Spec =
      dyn_cast<StringLiteral>(CE->getArg(1)->IgnoreParenImpCasts());
  if (!Spec || CE->getArg(1)->isDefaultArgument()) {
    Diags.error(CE->getArg(1)->getBeginLoc(),
                "the argument spec of a meshad request must be a string "
                "literal such as \"x\" or \"p[2]\"");
    return true;
  }
  if (CE->getBeginLoc().isMacroID() || CE->getEndLoc().isMacroID()) {
    Diags.error(R.Loc, "meshad requests inside macro expansions are not "
                       "supported");
    return true;
  }
  R.Function = FD;
  for (unsigned I = 2; I < CE->getNumArgs(); ++I)
    if (!parseOption(R, CE->getArg(I)))
      return true;
  if (parseSpec(R, Spec->getString()))
    Out.push_back(std::move(R));
  return true;
}

bool RequestVisitor::isCompleted(const clang::CallExpr *CE) {
  for (const Expr *A : CE->arguments())
    if (const auto *RD = A->getType()->getAsCXXRecordDecl())
      if (RD->getName() == "Derived" || RD->getName() == "HessianDerived" ||
          RD->getName() == "ElementGradient" ||
          RD->getName() == "ElementGradientSlots")
        return true;
  return false;
}

bool RequestVisitor::parseOption(DerivativeRequest &R, const Expr *Arg) {
  if (isa<CXXDefaultArgExpr>(Arg))
    return true;
  Expr::EvalResult Value;
  if (!Arg->EvaluateAsInt(Value, Ctx)) {
    Diags.error(Arg->getBeginLoc(),
                "the option of a meshad request must be a constant such as "
                "meshad::KeepSeeds");
    return false;
  }
  const EnumDecl *Enum = Arg->IgnoreParenImpCasts()->getType()->getAsEnumDecl();
  auto Twice = [&](clang::SourceLocation Earlier, const char *What) {
    if (Earlier.isInvalid())
      return false;
    Diags.error(Arg->getBeginLoc(),
                std::string("meshad request with two ") + What +
                    "; give one (flags combine with |: meshad::KeepSeeds | "
                    "meshad::WithValue)");
    return true;
  };
  if (Enum && Enum->getName() == "ElementStrategy") {
    if (Twice(R.StrategyLoc, "element strategies"))
      return false;
    // meshad::ElementStrategy: Auto, Gather, TwoPhase, Atomics, Fastest.
    R.ElementStrategy = static_cast<DerivativeRequest::Strategy>(
        Value.Val.getInt().getExtValue());
    R.StrategyLoc = Arg->getBeginLoc();
    return true;
  }
  if (Enum && Enum->getName() == "HessianOption") {
    // meshad::HessianOption: Dense, Sparse, SparseDevice.
    R.SparseHessian = Value.Val.getInt().getExtValue() >= 1;
    R.SparseDevice = Value.Val.getInt().getExtValue() == 2;
    R.StrategyLoc = Arg->getBeginLoc();
    return true;
  }
  // meshad::GradientOption, flags: 1 KeepSeeds, 2 WithValue, 4 AfterPrimal
  // (0 ResetSeeds).
  if (Twice(R.OptionLoc, "option arguments"))
    return false;
  int64_t Flags = Value.Val.getInt().getExtValue();
  R.KeepSeeds = Flags & 1;
  R.WithValue = Flags & 2;
  R.AfterPrimal = Flags & 4;
  R.OptionLoc = Arg->getBeginLoc();
  return true;
}

bool RequestVisitor::VisitFunctionDecl(FunctionDecl *FD) {
  if (!FD->hasAttrs() || !FD->doesThisDeclarationHaveABody())
    return true;
  for (const auto *A : FD->specific_attrs<AnnotateAttr>()) {
    StringRef Ann = A->getAnnotation();
    DerivativeRequest R;
    const char *Macro = "MESHAD_FORWARD", *Call = "meshad::differentiate";
    if (Ann.consume_front("meshad.forward:")) {
      R.Mode = DiffMode::Forward;
    } else if (Ann.consume_front("meshad.hvp:")) {
      R.Mode = DiffMode::Hvp;
      Macro = "MESHAD_HVP";
      Call = "meshad::hvp";
    } else if (Ann.consume_front("meshad.hessian:")) {
      R.Mode = DiffMode::Hessian;
      Macro = "MESHAD_HESSIAN";
      Call = "meshad::hessian";
    } else {
      continue;
    }
    R.Function = FD;
    R.Loc = A->getLocation().isValid() ? A->getLocation() : FD->getLocation();
    if (FD->isTemplated()) {
      Diags.error(R.Loc, std::string(Macro) +
                             " on a function template is not supported; "
                             "request each instantiation with " + Call);
      continue;
    }
    if (parseSpec(R, Ann))
      Out.push_back(std::move(R));
  }
  return true;
}

std::vector<DerivativeRequest> RequestPlanner::plan() {
  std::vector<DerivativeRequest> Requests;
  RequestVisitor V(Ctx, Diags, Requests);
  V.TraverseDecl(Ctx.getTranslationUnitDecl());
  return Requests;
}
