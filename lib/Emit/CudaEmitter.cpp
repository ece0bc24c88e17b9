//===- Emit/CudaEmitter.cpp - IR functions to CUDA C++ text ---------------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//

#include "Emit/CudaEmitter.h"
#include "IR/Traversal.h"

using namespace meshad;
using namespace meshad::ir;

namespace {

const char *spellTarget(CudaTarget T) {
  switch (T) {
  case CudaTarget::HostOnly:
    return "";
  case CudaTarget::Device:
    return "__device__ ";
  case CudaTarget::HostDevice:
    return "__host__ __device__ ";
  case CudaTarget::Global:
    return "__global__ ";
  }
  return "";
}

/// The declaration of \p P named \p Name: `double &acc` for a parameter
/// taken by reference.
std::string spellParam(const Var &P, const std::string &Name) {
  if (CudaEmitter::takesByReference(P))
    return spellDeclaration(P.getType()->getElement(), "&" + Name);
  return spellDeclaration(P.getType(), Name);
}

/// Joins \p Params of \p F as "double x, const double *p" (with names) or
/// "double, const double *" (without).
std::string spellParams(const Function &F, bool WithNames) {
  std::string S;
  for (const Var *P : F.getParams()) {
    if (!S.empty())
      S += ", ";
    S += spellParam(*P, WithNames ? P->getName() : "");
  }
  return S;
}

/// "__device__ inline double f(double x)": everything up to the body; the
/// name qualified by the namespace with \p QualifiedName.
std::string spellHeader(const Function &F, bool QualifiedName = false) {
  std::string S = spellTarget(F.getTarget());
  if (!F.getQualifiers().empty())
    S += F.getQualifiers() + " ";
  // The return type wraps the declarator so that "double *f(...)" reads
  // naturally.
  std::string Name = F.getName();
  if (QualifiedName && !F.getNamespace().empty())
    Name = F.getNamespace() + "::" + Name; // No "::" after a return type.
  return S + spellDeclaration(F.getReturnType(),
                              Name + "(" + spellParams(F, true) + ")");
}

} // namespace

EmitContext EmitContext::of(const Function &F) {
  EmitContext Ctx;
  Ctx.Namespace = F.getNamespace();
  for (const Var *P : F.getParams()) {
    Ctx.VarNames.insert(P->getName());
    if (CudaEmitter::takesByReference(*P))
      Ctx.RefParams.insert(P);
  }
  forEachStmt(F.getBody(), [&](const Stmt *S) {
    if (const auto *D = llvm::dyn_cast<DeclStmt>(S))
      Ctx.VarNames.insert(D->getVar()->getName());
  });
  return Ctx;
}

std::string CudaEmitter::spellCallee(const Function &F,
                                     const EmitContext *Ctx) {
  std::string Name = F.getName() + F.getTemplateArgs();
  bool Visible = Ctx ? Ctx->Namespace == F.getNamespace() &&
                           !Ctx->VarNames.count(F.getName())
                     : F.getNamespace().empty();
  if (Visible)
    return Name;
  return "::" + (F.getNamespace().empty() ? "" : F.getNamespace() + "::") +
         Name;
}

std::string CudaEmitter::emitDefinition(const Function &F,
                                        bool QualifiedName,
                                        const SourceLines *Lines) {
  if (!F.getBody())
    return emitPrototype(F);
  EmitContext Ctx = EmitContext::of(F);
  Ctx.Lines = Lines;
  Ctx.FallbackLoc = F.getLoc();
  std::string S;
  std::string File;
  unsigned Line;
  if (Lines && Lines->lookup(F.getLoc(), File, Line))
    S = lineDirective(Line, File);
  S += spellHeader(F, QualifiedName) + " {\n";
  S += emitStmts(F.getBody(), 2, &Ctx);
  return S + "}\n";
}

std::string CudaEmitter::emitPrototype(const Function &F) {
  return spellHeader(F) + ";\n";
}

std::string CudaEmitter::emitParams(const Function &F,
                                    const std::set<std::string> &Named) {
  std::string S;
  for (const Var *P : F.getParams())
    S += (S.empty() ? "" : ", ") +
         spellParam(*P, Named.count(P->getName()) ? P->getName() : "");
  return S;
}

std::string CudaEmitter::emitFunctionPointerType(const Function &F) {
  return spellDeclaration(F.getReturnType(),
                          "(*)(" + spellParams(F, false) + ")");
}

std::string CudaEmitter::lineDirective(unsigned Line, const std::string &File) {
  std::string Escaped;
  for (char C : File) {
    if (C == '\\' || C == '"')
      Escaped += '\\';
    Escaped += C;
  }
  return "#line " + std::to_string(Line) + " \"" + Escaped + "\"\n";
}
