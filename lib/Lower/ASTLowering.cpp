//===- Lower/ASTLowering.cpp - Clang functions to IR functions ------------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The function level of the lowering: finding definitions, signatures,
/// CUDA targets, and the memo that lowers every user callee once.
///
//===----------------------------------------------------------------------===//

#include "Lower/LoweringImpl.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Lex/Lexer.h"

using namespace meshad;
using namespace clang;

//===----------------------------------------------------------------------===//
// LoweringState
//===----------------------------------------------------------------------===//

LoweringState::LoweringState(ASTContext &Ctx, ir::Module &M,
                             DiagnosticSink &Diags)
    : Ctx(Ctx), M(M), Diags(Diags), Policy(Ctx.getPrintingPolicy()) {
  // Names are emitted outside any anonymous namespace, types without
  // `struct`, booleans as `bool`.
  Policy.SuppressUnwrittenScope = true;
  Policy.SuppressTagKeyword = true;
  Policy.Bool = true;
}

std::nullptr_t LoweringState::fail(SourceLocation Loc, const Twine &Msg) {
  Diags.error(Loc, Msg.str());
  return nullptr;
}

std::string LoweringState::getSourceText(SourceRange R) const {
  if (R.isInvalid() || R.getBegin().isMacroID() || R.getEnd().isMacroID())
    return "";
  return Lexer::getSourceText(CharSourceRange::getTokenRange(R),
                              Ctx.getSourceManager(), Ctx.getLangOpts())
      .str();
}

std::string LoweringState::getQualifiedName(const NamedDecl *D) const {
  std::string Name;
  llvm::raw_string_ostream OS(Name);
  D->printQualifiedName(OS, Policy);
  return Name;
}

namespace {

/// Collects the identifiers a function body declares and refers to.
class UserNameCollector : public RecursiveASTVisitor<UserNameCollector> {
public:
  explicit UserNameCollector(ir::NameScope &Names) : Names(Names) {}
  bool VisitNamedDecl(NamedDecl *D) {
    add(D);
    return true;
  }
  bool VisitDeclRefExpr(DeclRefExpr *E) {
    add(E->getDecl());
    return true;
  }

private:
  void add(const NamedDecl *D) {
    if (const IdentifierInfo *II = D->getIdentifier())
      Names.reserve(II->getName().str());
  }
  ir::NameScope &Names;
};

} // namespace

void meshad::reserveUserNames(const FunctionDecl *FD, ir::NameScope &Names) {
  UserNameCollector Collector(Names);
  for (const ParmVarDecl *P : FD->parameters())
    Collector.VisitNamedDecl(const_cast<ParmVarDecl *>(P));
  if (FD->hasBody())
    Collector.TraverseStmt(FD->getBody());
}

//===----------------------------------------------------------------------===//
// ASTLowering::Impl
//===----------------------------------------------------------------------===//

namespace {

bool hasAnnotation(const FunctionDecl *FD, StringRef Annotation) {
  for (const auto *A : FD->specific_attrs<AnnotateAttr>())
    if (A->getAnnotation() == Annotation)
      return true;
  return false;
}

} // namespace

ASTLowering::Impl::Impl(ASTContext &Ctx, ir::Module &M, DiagnosticSink &Diags)
    : S(Ctx, M, Diags), Types(S),
      Exprs(S, Types,
            [this](const FunctionDecl *FD) { return lowerFunction(FD); }),
      Stmts(S, Types, Exprs) {}

ir::Function *ASTLowering::Impl::lowerFunction(const FunctionDecl *FD) {
  if (!FD)
    return nullptr;
  const FunctionDecl *Key = FD->getCanonicalDecl();
  if (Failed.contains(Key))
    return nullptr;
  if (ir::Function *F = Functions.lookup(Key))
    return F;

  const FunctionDecl *Def = findDefinition(FD);
  ir::Function *F = checkSupported(Def) ? createSignature(Def) : nullptr;
  if (!F) {
    Failed.insert(Key);
    return nullptr;
  }
  // Registered before the body so that recursive calls find it.
  Functions[Key] = F;
  Decls[F] = Def;
  if (!Def->doesThisDeclarationHaveABody())
    return F; // A declaration: the transform decides what to do with it.

  ir::BlockStmt *Body = nullptr;
  if (const auto *CS = dyn_cast<CompoundStmt>(Def->getBody())) {
    // A callee is lowered in the middle of its caller's expression.
    ExprLowering::FunctionScope Caller = Exprs.enterFunction(Def);
    auto Bound = bindObject(F);
    Body = Stmts.lowerBody(CS, Def);
    unbindObject(Bound);
    Exprs.leaveFunction(std::move(Caller));
  } else
    S.fail(Def->getBody()->getBeginLoc(),
           "meshad: function try blocks are not supported");
  if (!Body) {
    Functions.erase(Key);
    Decls.erase(F);
    Failed.insert(Key);
    return nullptr;
  }
  F->setBody(Body);
  return F;
}

const FunctionDecl *ASTLowering::Impl::getDecl(const ir::Function *F) const {
  return Decls.lookup(F);
}

const FunctionDecl *
ASTLowering::Impl::findDefinition(const FunctionDecl *FD) {
  // For template specializations this is the instantiated definition.
  if (const FunctionDecl *Def = FD->getDefinition())
    return Def;
  return FD;
}

bool ASTLowering::Impl::checkSupported(const FunctionDecl *FD) {
  const char *Reason = nullptr;
  // A call operator's own checks are made at its call (LowerFunctors.cpp).
  if (isa<CXXMethodDecl>(FD) &&
      cast<CXXMethodDecl>(FD)->getOverloadedOperator() != OO_Call)
    Reason = "meshad: member functions are not supported yet; write a "
             "free function that takes the object";
  else if (FD->isDependentContext())
    Reason = "meshad: uninstantiated templates are not supported; "
             "differentiate a specialization";
  else if (FD->isVariadic())
    Reason = "meshad: variadic functions are not supported";
  else if (FD->getReturnType()->isReferenceType())
    Reason = "meshad: functions returning references are not supported; "
             "return the value";
  if (Reason)
    S.fail(FD->getLocation(), Reason);
  return !Reason;
}

ir::Function *ASTLowering::Impl::createSignature(const FunctionDecl *FD) {
  ir::Function *F = S.M.createFunction(FD->getNameAsString(),
                                       Types.lowerType(FD->getReturnType()),
                                       getCudaTarget(FD));
  F->setTemplateArgs(getTemplateArgs(FD));
  F->setNamespace(getNamespace(FD));
  F->setQualifiers(getQualifiers(FD));
  F->setSourceDecl(FD);
  F->setLoc(FD->getLocation());
  return lowerObjectParams(FD, F) && lowerParams(FD, F) ? F : nullptr;
}

bool ASTLowering::Impl::lowerParams(const FunctionDecl *FD, ir::Function *F) {
  bool Ok = true;
  // Unnamed parameters are named "_p<index>" unless the user took that name.
  std::optional<ir::NameScope> Names;
  for (unsigned I = 0, E = FD->getNumParams(); I != E; ++I) {
    const ParmVarDecl *P = FD->getParamDecl(I);
    bool ByRef = isMutableReference(P->getType());
    const ir::Type *Ty =
        ByRef ? lowerReferenceParamType(P) : Types.lowerDeclType(P);
    if (!Ty) {
      Ok = false;
      continue;
    }
    std::string Name = P->getNameAsString();
    if (Name.empty()) {
      if (!Names)
        reserveUserNames(FD, Names.emplace());
      Name = Names->unique("_p" + std::to_string(I));
    }
    ir::Var *V = S.M.createVar(std::move(Name), Ty, ir::Var::Storage::Param);
    V->setReferenceParam(ByRef);
    Ok &= lowerParamAnnotations(P, V);
    S.Vars[P] = V;
    F->addParam(V);
  }
  return Ok;
}

const ir::Type *
ASTLowering::Impl::lowerReferenceParamType(const ParmVarDecl *P) {
  QualType Pointee = P->getType()->getPointeeType();
  if (std::string Container = thrustContainerProblem(Pointee);
      !Container.empty())
    return S.fail(P->getLocation(), Container);
  const ir::Type *Ty = Types.lowerType(Pointee);
  if (!Ty->isFloatingScalar() && !Ty->isIntegral() && !Ty->isVector())
    return S.fail(P->getLocation(),
                  Twine("meshad: non-const reference parameters of type '") +
                      Pointee.getAsString(S.Policy) +
                      "' are not supported; pass a pointer");
  // `double &acc` is passed as `double *acc` (LowerReferences.cpp).
  return S.M.getTypes().getPointer(Ty);
}

bool ASTLowering::Impl::lowerParamAnnotations(const ParmVarDecl *P,
                                              ir::Var *V) {
  bool Ok = true;
  for (const auto *A : P->specific_attrs<AnnotateAttr>()) {
    llvm::StringRef Note = A->getAnnotation();
    if (!Note.starts_with("meshad::"))
      continue;
    if (Note != "meshad::thread_exclusive") {
      S.Diags.error(A->getLocation(),
                    "unknown meshad annotation '" + Note.str() + "'");
      Ok = false;
    } else if (!V->getType()->isPointer()) {
      S.Diags.error(A->getLocation(),
                    "MESHAD_THREAD_EXCLUSIVE applies to pointer parameters; '" +
                        V->getName() + "' is not a pointer");
      Ok = false;
    } else {
      V->setAssertedExclusive(true);
    }
  }
  return Ok;
}

ir::CudaTarget ASTLowering::Impl::getCudaTarget(const FunctionDecl *FD) {
  // The CPU emulation header spells __global__ etc. as annotations.
  if (FD->hasAttr<CUDAGlobalAttr>() || hasAnnotation(FD, "meshad.cuda.global"))
    return ir::CudaTarget::Global;
  bool Device =
      FD->hasAttr<CUDADeviceAttr>() || hasAnnotation(FD, "meshad.cuda.device");
  bool Host =
      FD->hasAttr<CUDAHostAttr>() || hasAnnotation(FD, "meshad.cuda.host");
  if (Device)
    return Host ? ir::CudaTarget::HostDevice : ir::CudaTarget::Device;
  // A lambda written in device code runs where that code runs.
  if (const auto *MD = dyn_cast<CXXMethodDecl>(FD);
      MD && MD->getParent()->isLambda() && !Host)
    if (const auto *Outer = dyn_cast_or_null<FunctionDecl>(
            MD->getParent()->getParentFunctionOrMethod());
        Outer && getCudaTarget(Outer) != ir::CudaTarget::HostOnly)
      return ir::CudaTarget::HostDevice;
  return ir::CudaTarget::HostOnly;
}

std::string ASTLowering::Impl::getQualifiers(const FunctionDecl *FD) {
  std::string Qualifiers;
  if (FD->getStorageClass() == SC_Static)
    Qualifiers = "static";
  if (FD->isInlineSpecified())
    Qualifiers += Qualifiers.empty() ? "inline" : " inline";
  return Qualifiers;
}

std::string ASTLowering::Impl::getNamespace(const FunctionDecl *FD) {
  std::string Name;
  for (const DeclContext *DC = FD->getDeclContext(); DC;
       DC = DC->getParent()) {
    const auto *NS = dyn_cast<NamespaceDecl>(DC);
    if (!NS || NS->isAnonymousNamespace())
      continue; // extern "C" blocks; unnamed namespaces are not spelled.
    Name = Name.empty() ? NS->getNameAsString()
                        : NS->getNameAsString() + "::" + Name;
  }
  return Name;
}

std::string ASTLowering::Impl::getTemplateArgs(const FunctionDecl *FD) {
  const TemplateArgumentList *Args = FD->getTemplateSpecializationArgs();
  if (!Args)
    return "";
  std::string Text;
  llvm::raw_string_ostream OS(Text);
  printTemplateArgumentList(OS, Args->asArray(), S.Policy);
  return Text;
}

//===----------------------------------------------------------------------===//
// ASTLowering
//===----------------------------------------------------------------------===//

ASTLowering::ASTLowering(ASTContext &Ctx, ir::Module &M, DiagnosticSink &Diags)
    : P(std::make_unique<Impl>(Ctx, M, Diags)) {}

ASTLowering::~ASTLowering() = default;

ir::Function *ASTLowering::lower(const FunctionDecl *FD) {
  return P->lowerFunction(FD);
}

const ir::Type *ASTLowering::lowerType(QualType T) {
  return P->Types.lowerType(T);
}

const FunctionDecl *ASTLowering::getDecl(const ir::Function *F) const {
  return P->getDecl(F);
}

const std::vector<ir::Function *> &ASTLowering::getLambdas() const {
  return P->Lambdas;
}
