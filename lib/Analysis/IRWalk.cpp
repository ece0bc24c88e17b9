//===- Analysis/IRWalk.cpp - Walking the expressions of the IR ------------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//

#include "Analysis/IRWalk.h"
#include "Emit/CudaEmitter.h"

#include "llvm/ADT/StringSwitch.h"

using namespace meshad;
using namespace meshad::ir;
using llvm::cast;

std::string irwalk::spell(const Expr *E) { return CudaEmitter::emitExpr(E); }

const Expr *irwalk::stripCasts(const Expr *E) {
  while (const auto *C = llvm::dyn_cast<CastExpr>(E))
    E = C->getSub();
  return E;
}

bool irwalk::isSignedInteger(const Type *Ty) {
  if (!Ty || Ty->getKind() != Type::Kind::Int)
    return false;
  return llvm::StringSwitch<bool>(Ty->getUnqualified()->getSpelling())
      .Cases({"int", "long", "long long", "short", "signed char", "long int",
              "long long int", "short int", "__int128", "int8_t", "int16_t",
              "int32_t", "int64_t", "ptrdiff_t"},
             true)
      .Default(false);
}
