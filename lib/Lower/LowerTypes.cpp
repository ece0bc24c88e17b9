//===- Lower/LowerTypes.cpp - Clang types to IR types ---------------------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Maps Clang types to the IR types: floating scalars, CUDA vector types,
/// pointers and constant arrays are modelled; integers keep their canonical
/// spelling; everything else is Opaque with its printed spelling.
///
//===----------------------------------------------------------------------===//

#include "Lower/LoweringImpl.h"

#include "clang/AST/ASTContext.h"

using namespace meshad;
using namespace clang;

namespace {

/// Recognises the CUDA vector type names float1..float4 and double1..double4.
/// Returns the width (0 when \p Name is none of them) and sets \p IsDouble.
unsigned getVectorWidth(StringRef Name, bool &IsDouble) {
  IsDouble = Name.consume_front("double");
  if (!IsDouble && !Name.consume_front("float"))
    return 0;
  if (Name.size() != 1 || Name[0] < '1' || Name[0] > '4')
    return 0;
  return Name[0] - '0';
}

} // namespace

const ir::Type *TypeLowering::lowerType(QualType T) {
  ir::TypeContext &TC = S.M.getTypes();
  if (T.isNull())
    return TC.getOpaque("<unknown type>");
  if (const auto *RT = T->getAs<ReferenceType>())
    T = RT->getPointeeType();
  // Typedefs and deduced types (auto) resolve to their canonical type.
  T = T.getCanonicalType();
  if (const auto *PT = T->getAs<PointerType>())
    return TC.getPointer(lowerType(PT->getPointeeType()));
  if (T->isConstantArrayType())
    return lowerArray(T);

  const ir::Type *Base;
  if (const auto *BT = T->getAs<BuiltinType>())
    Base = lowerBuiltin(BT, T);
  else if (const RecordDecl *RD = T->getAsRecordDecl())
    Base = lowerRecord(RD, T);
  else
    Base = getOpaque(T);
  return T.isConstQualified() ? TC.getConst(Base) : Base;
}

const ir::Type *TypeLowering::lowerDeclType(const ValueDecl *D) {
  QualType T = D->getType();
  const auto *RT = T->getAs<ReferenceType>();
  if (!RT)
    return lowerType(T);
  QualType Pointee = RT->getPointeeType();
  if (!Pointee.isConstQualified())
    return S.fail(D->getLocation(),
                  "meshad: non-const references are not supported yet; "
                  "pass a pointer (double *out) or return the value");
  // `const T &` is read-only: it is lowered as a value of type T.
  return lowerType(Pointee)->getUnqualified();
}

const ir::Type *TypeLowering::lowerBuiltin(const BuiltinType *BT,
                                           QualType T) {
  ir::TypeContext &TC = S.M.getTypes();
  switch (BT->getKind()) {
  case BuiltinType::Void:
    return TC.getVoid();
  case BuiltinType::Bool:
    return TC.getBool();
  case BuiltinType::Float:
    return TC.getFloat();
  case BuiltinType::Double:
    return TC.getDouble();
  default:
    break;
  }
  if (BT->isInteger())
    return TC.getInt(BT->getName(S.Policy).str());
  return getOpaque(T);
}

const ir::Type *TypeLowering::lowerRecord(const RecordDecl *RD, QualType T) {
  bool IsDouble = false;
  unsigned Width = 0;
  // Only the global CUDA vector types, not a user's ns::float3.
  if (RD->getIdentifier() &&
      RD->getDeclContext()->getRedeclContext()->isTranslationUnit())
    Width = getVectorWidth(RD->getName(), IsDouble);
  if (Width == 0)
    return getOpaque(T);
  ir::TypeContext &TC = S.M.getTypes();
  return TC.getVector(IsDouble ? TC.getDouble() : TC.getFloat(), Width);
}

const ir::Type *TypeLowering::lowerArray(QualType T) {
  // getAsConstantArrayType moves qualifiers of the array onto its element.
  const ConstantArrayType *AT = S.Ctx.getAsConstantArrayType(T);
  const ir::Type *Elem = lowerType(AT->getElementType());
  return S.M.getTypes().getArray(Elem, AT->getSize().getZExtValue());
}

const ir::Type *TypeLowering::getOpaque(QualType T) {
  return S.M.getTypes().getOpaque(T.getUnqualifiedType().getAsString(S.Policy));
}
