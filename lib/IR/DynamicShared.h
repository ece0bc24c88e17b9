//===- IR/DynamicShared.h - A kernel's dynamic shared memory ----*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The dynamic shared memory of a kernel (`extern __shared__ double buf[];`)
/// is a __shared__ variable of pointer type without initializer, emitted as
/// `MESHAD_DYNAMIC_SHARED(double, buf);`. Its tangent or adjoint is the
/// pointer `meshad::dynamicSharedShadow<double>()` (the upper half of the
/// derived kernel's dynamic shared memory, which is launched with twice the
/// primal's bytes: include/meshad/codegen/DynamicShared.h).
///
/// \code
///   if (ir::isDynamicShared(*V))
///     Init = ir::dynamicSharedShadow(M, V->getType());
/// \endcode
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_IR_DYNAMICSHARED_H
#define MESHAD_IR_DYNAMICSHARED_H

#include "IR/IR.h"

namespace meshad::ir {

/// True for a kernel's dynamic shared memory, or the derivative of one.
inline bool isDynamicShared(const Var &V) {
  return V.isShared() && V.getType()->isPointer();
}

/// `meshad::dynamicSharedShadow<T>()` of type \p PtrTy (T *): slot \p Slot
/// of \p Slots (`<T, Slot, Slots>` unless 1 of 2, the upper half).
const Expr *dynamicSharedShadow(Module &M, const Type *PtrTy,
                                unsigned Slot = 1, unsigned Slots = 2);

/// The slot of a meshad::dynamicSharedShadow call (1 for `<T>`), and the
/// number of slots (2 for `<T>`); 0 for other expressions.
unsigned sharedShadowSlot(const Expr *E);
unsigned sharedShadowSlots(const Expr *E);

/// An HVP (forward over reverse) of a kernel with dynamic shared memory:
/// the gradient's adjoints (slot 1 of 2) go to slot 1 of 4, and its zeroing
/// zeroes slots 1 to 3; forward mode put the tangents of the primal and of
/// the adjoints in slots 2 and 3.
void spreadSharedShadows(Module &M, Function &F);

/// True for a call of meshad::dynamicSharedShadow.
bool isDynamicSharedShadow(const Expr *E);

/// True when \p F keeps a derivative in the upper half of its dynamic shared
/// memory: a kernel that needs twice the primal's dynamic shared bytes.
bool usesSharedShadow(const Function &F);

/// The first declaration of dynamic shared memory in \p F's body, or null.
const DeclStmt *findDynamicShared(const Function &F);

/// The error for dynamic shared memory beyond second derivatives (an HVP
/// keeps four slots: spreadSharedShadows).
constexpr const char *SharedShadowSecondOrder =
    "dynamic shared memory is not supported beyond second derivatives yet: "
    "give the kernel a __shared__ array of fixed size";

/// How many times the primal's dynamic shared bytes a function that
/// usesSharedShadow needs (a gradient's, a tangent's).
constexpr unsigned SharedShadowFactor = 2;

/// How many times the primal's dynamic shared bytes \p F needs: the most
/// slots of its meshad::dynamicSharedShadow calls, 1 without any.
unsigned sharedShadowFactor(const Function &F);

} // namespace meshad::ir

#endif
