//===- Emit/CudaEmitter.cpp - IR functions to CUDA C++ text ---------------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//

#include "Emit/CudaEmitter.h"

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

/// Joins \p Params of \p F as "double x, const double *p" (with names) or
/// "double, const double *" (without).
std::string spellParams(const Function &F, bool WithNames) {
  std::string S;
  for (const Var *P : F.getParams()) {
    if (!S.empty())
      S += ", ";
    S += spellDeclaration(P->getType(), WithNames ? P->getName() : "");
  }
  return S;
}

/// "__device__ inline double f(double x)": everything up to the body.
std::string spellHeader(const Function &F) {
  std::string S = spellTarget(F.getTarget());
  if (!F.getQualifiers().empty())
    S += F.getQualifiers() + " ";
  // The return type wraps the declarator so that "double *f(...)" reads
  // naturally.
  return S + spellDeclaration(F.getReturnType(),
                              F.getName() + "(" + spellParams(F, true) + ")");
}

} // namespace

std::string CudaEmitter::emitDefinition(const Function &F) {
  if (!F.getBody())
    return emitPrototype(F);
  std::string S = spellHeader(F) + " {\n";
  for (const Stmt *St : F.getBody()->getBody())
    S += emitStmt(St, 2);
  return S + "}\n";
}

std::string CudaEmitter::emitPrototype(const Function &F) {
  return spellHeader(F) + ";\n";
}

std::string CudaEmitter::emitFunctionPointerType(const Function &F) {
  return spellDeclaration(F.getReturnType(),
                          "(*)(" + spellParams(F, false) + ")");
}
