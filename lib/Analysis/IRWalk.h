//===- Analysis/IRWalk.h - Walking the expressions of the IR -----*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Small helpers of the ownership analysis: the IR walks (IR/Traversal.h)
/// and spelling expressions in remarks.
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_ANALYSIS_IRWALK_H
#define MESHAD_ANALYSIS_IRWALK_H

#include "IR/IR.h"
#include "IR/Traversal.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"

#include <string>

namespace meshad {
namespace irwalk {

// The generic walks live in IR/Traversal.h.
using ir::forEachExpr;
using ir::forEachStmt;
using ir::operands;
using ir::ownExprs;

/// \p E as CUDA source, for remarks.
std::string spell(const ir::Expr *E);

/// \p E without the casts around it.
const ir::Expr *stripCasts(const ir::Expr *E);

/// True for an integer type known to be signed (int, long...); false for
/// unsigned types, bool and spellings it does not know.
bool isSignedInteger(const ir::Type *Ty);

} // namespace irwalk
} // namespace meshad

#endif // MESHAD_ANALYSIS_IRWALK_H
