//===- IR/Intrinsics.cpp - What the IR knows about intrinsics -------------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//

#include "IR/Intrinsics.h"
#include "IR/IR.h"

using namespace meshad;
using namespace meshad::ir;

namespace {

constexpr IntrinsicDeriv None = IntrinsicDeriv::None;
constexpr IntrinsicDeriv Zero = IntrinsicDeriv::Zero;
constexpr IntrinsicDeriv Linear = IntrinsicDeriv::Linear;
constexpr IntrinsicDeriv LinearAtomic = IntrinsicDeriv::LinearAtomic;
constexpr IntrinsicDeriv TapePush = IntrinsicDeriv::TapePush;
constexpr IntrinsicDeriv TapePop = IntrinsicDeriv::TapePop;
constexpr IntrinsicDeriv Allocation = IntrinsicDeriv::Allocation;
constexpr IntrinsicDeriv NotDifferentiable = IntrinsicDeriv::NotDifferentiable;

const IntrinsicInfo Table[] = {
#define MESHAD_INTRINSIC(Name, Arity, Flags, AddrArg, ValueArg, Reads, Writes, \
                         Deriv, Where)                                         \
  {Name, Arity, Flags, AddrArg, ValueArg, Reads, Writes, Deriv, Where, false},
#define MESHAD_INTRINSIC_FAMILY(Prefix, Arity, Flags, AddrArg, ValueArg,       \
                                Reads, Writes, Deriv, Where)                   \
  {Prefix, Arity, Flags, AddrArg, ValueArg, Reads, Writes, Deriv, Where, true},
#include "IR/Intrinsics.def"
};

/// \p Name without template arguments ("f<1, 2>" -> "f").
llvm::StringRef baseName(llvm::StringRef Name) {
  return Name.take_until([](char C) { return C == '<'; }).rtrim();
}

} // namespace

const IntrinsicInfo *ir::lookupIntrinsic(llvm::StringRef Name) {
  Name = baseName(Name);
  const IntrinsicInfo *Family = nullptr;
  size_t FamilyLength = 0;
  for (const IntrinsicInfo &I : Table) {
    llvm::StringRef Key = I.Name;
    if (!I.IsFamily) {
      if (Key == Name)
        return &I;
      continue;
    }
    if (Name.starts_with(Key) && Key.size() > FamilyLength) {
      Family = &I;
      FamilyLength = Key.size();
    }
  }
  return Family;
}

const IntrinsicInfo *ir::lookupIntrinsic(const CallExpr *C) {
  if (!C || C->getCalleeKind() != CallExpr::CalleeKind::Intrinsic)
    return nullptr;
  return lookupIntrinsic(C->getName());
}

bool ir::isPureIntrinsicName(llvm::StringRef Name) {
  const IntrinsicInfo *I = lookupIntrinsic(Name);
  return !I || I->isPure();
}

bool ir::isIntrinsicWith(const CallExpr *C, IntrinsicFlag Flag) {
  const IntrinsicInfo *I = lookupIntrinsic(C);
  return I && I->has(Flag) && I->acceptsArgs(C->getNumArgs());
}

bool ir::isIntrinsicDeriv(const CallExpr *C, IntrinsicDeriv D) {
  const IntrinsicInfo *I = lookupIntrinsic(C);
  return I && I->Deriv == D && I->acceptsArgs(C->getNumArgs());
}

llvm::ArrayRef<IntrinsicInfo> ir::allIntrinsics() { return Table; }
