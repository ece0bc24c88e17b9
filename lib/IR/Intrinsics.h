//===- IR/Intrinsics.h - What the IR knows about intrinsics -----*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The one table of intrinsics (IR/Intrinsics.def): for each call that some
/// pass treats by name (atomicAdd, __syncthreads, warp shuffles, printf, the
/// CUDA runtime, meshad::push/pop and the other runtime helpers) its arity,
/// memory effects, whether it is a barrier or an atomic, and how derivatives
/// pass it. Analyses and transforms ask this table instead of keeping their
/// own lists of names.
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_IR_INTRINSICS_H
#define MESHAD_IR_INTRINSICS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

namespace meshad {
namespace ir {

class CallExpr;

/// Property bits of an intrinsic (see IR/Intrinsics.def).
enum IntrinsicFlag : unsigned {
  IF_Pure = 1u << 0,
  IF_Barrier = 1u << 1,
  IF_BlockScope = 1u << 2,
  IF_Atomic = 1u << 3,
  IF_Accumulates = 1u << 4,
  IF_ReturnsOld = 1u << 5,
  IF_Collective = 1u << 6,
  IF_Fence = 1u << 7,
  /// A run-time check: no memory effect, stops the program when it fails;
  /// repeating it is harmless, dropping it is not.
  IF_Check = 1u << 8,
};

/// Where an intrinsic may be called.
enum IntrinsicAvailability : unsigned {
  IA_Host = 1,
  IA_Device = 2,
  IA_Both = 3
};

/// How derivatives pass an intrinsic call (see IR/Intrinsics.def).
enum class IntrinsicDeriv {
  None,
  Zero,
  Linear,
  LinearAtomic,
  TapePush,
  TapePop,
  /// meshad::newArray(&p, n) / meshad::deleteArray(p): the derivative
  /// memory is allocated and released beside the primal's.
  Allocation,
  NotDifferentiable,
};

/// One row of the table.
///
/// \code
///   if (const ir::IntrinsicInfo *I = ir::lookupIntrinsic(C->getName()))
///     if (I->isAtomic() && I->writesArg(0)) ...
/// \endcode
struct IntrinsicInfo {
  /// The name, or the prefix of a family ("atomic").
  const char *Name;
  /// Number of arguments; -1 when it varies.
  int Arity;
  unsigned Flags;
  /// The argument designating the memory written or added to (-1: none).
  int AddrArg;
  /// The argument whose value is stored or added (-1: none).
  int ValueArg;
  /// Bit k: reads / writes memory through argument k.
  unsigned ReadsMask, WritesMask;
  IntrinsicDeriv Deriv;
  unsigned Availability;
  /// True for a MESHAD_INTRINSIC_FAMILY row (a prefix).
  bool IsFamily;

  bool has(IntrinsicFlag F) const { return (Flags & F) != 0; }
  bool isPure() const { return has(IF_Pure); }
  bool isBarrier() const { return has(IF_Barrier); }
  /// A barrier of the whole block (__syncthreads and the helpers that end
  /// with one).
  bool isBlockBarrier() const { return has(IF_Barrier) && has(IF_BlockScope); }
  bool isAtomic() const { return has(IF_Atomic); }
  /// `*Addr += Value` in some form (atomicAdd, the adjoint-add helpers).
  bool accumulates() const { return has(IF_Accumulates); }
  bool returnsOld() const { return has(IF_ReturnsOld); }
  bool readsArg(unsigned K) const { return K < 32 && (ReadsMask >> K) & 1; }
  bool writesArg(unsigned K) const { return K < 32 && (WritesMask >> K) & 1; }
  bool writesMemory() const { return WritesMask != 0; }
  /// True when a call with \p NumArgs arguments has the arity of the table.
  bool acceptsArgs(unsigned NumArgs) const {
    return Arity < 0 || unsigned(Arity) == NumArgs;
  }
  bool onHost() const { return (Availability & IA_Host) != 0; }
  bool onDevice() const { return (Availability & IA_Device) != 0; }
};

/// The row of \p Name: the intrinsic itself, else the family with the
/// longest matching prefix; null for names the table does not know (opaque
/// functions: no derivative, assumed pure). Template arguments are ignored
/// ("meshad::tileAdd<0, 1, 2>", "atomicAdd<double>").
const IntrinsicInfo *lookupIntrinsic(llvm::StringRef Name);

/// The row of an intrinsic call, null for calls of user and math functions
/// and for unknown names.
const IntrinsicInfo *lookupIntrinsic(const CallExpr *C);

/// True when a call of \p Name has no effect besides its value: pure table
/// entries and names the table does not know (math-like opaque functions).
bool isPureIntrinsicName(llvm::StringRef Name);

/// True for an intrinsic call with \p Flag whose arguments match the arity
/// of the table (e.g. atomicAdd with two arguments).
bool isIntrinsicWith(const CallExpr *C, IntrinsicFlag Flag);

/// True for an intrinsic call that derivatives pass as \p D, with the arity
/// of the table.
bool isIntrinsicDeriv(const CallExpr *C, IntrinsicDeriv D);

/// The whole table, for tests and documentation.
llvm::ArrayRef<IntrinsicInfo> allIntrinsics();

} // namespace ir
} // namespace meshad

#endif // MESHAD_IR_INTRINSICS_H
