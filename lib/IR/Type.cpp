//===- IR/Type.cpp - Types of the meshad IR -------------------------------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//

#include "IR/Type.h"

using namespace meshad;
using namespace meshad::ir;

//===----------------------------------------------------------------------===//
// Type
//===----------------------------------------------------------------------===//

bool Type::isDifferentiable() const {
  if (isTape())
    return Elem->isDifferentiable();
  return getScalarElement()->isDifferentiableValue();
}

const Type *Type::getScalarElement() const {
  const Type *T = this;
  while (T->isIndexable())
    T = T->getElement();
  return T;
}

//===----------------------------------------------------------------------===//
// TypeContext
//===----------------------------------------------------------------------===//

TypeContext::TypeContext() {
  VoidTy = make(Type::Kind::Void, nullptr, 0, false, "");
  BoolTy = make(Type::Kind::Bool, nullptr, 0, false, "");
  FloatTy = make(Type::Kind::Float, nullptr, 0, false, "");
  DoubleTy = make(Type::Kind::Double, nullptr, 0, false, "");
}

const Type *TypeContext::make(Type::Kind K, const Type *Elem, unsigned Count,
                              bool Const, const std::string &Spelling,
                              TapePlacement Placement) {
  Key K2(static_cast<int>(K), Elem, Count, Const, Spelling,
         static_cast<int>(Placement));
  auto It = Types.find(K2);
  if (It != Types.end())
    return It->second.get();
  std::unique_ptr<Type> New(
      new Type(K, Elem, Count, Const, Spelling, Placement));
  Type *Raw = New.get();
  Types.emplace(std::move(K2), std::move(New));
  return Raw;
}

const Type *TypeContext::getInt(const std::string &Spelling) {
  return make(Type::Kind::Int, nullptr, 0, false, Spelling);
}

const Type *TypeContext::getVector(const Type *Elem, unsigned Width) {
  Elem = Elem->getUnqualified();
  std::string Base = Elem->getKind() == Type::Kind::Float ? "float" : "double";
  return make(Type::Kind::Vector, Elem, Width, false,
              Base + std::to_string(Width));
}

const Type *TypeContext::getPointer(const Type *Pointee) {
  return make(Type::Kind::Pointer, Pointee, 0, false, "");
}

const Type *TypeContext::getArray(const Type *Elem, unsigned Count) {
  const Type *Arr = make(Type::Kind::Array, Elem, Count, false, "");
  // An array of const elements is itself const-qualified in C: its
  // unqualified twin is the array of unqualified elements.
  if (Elem->getUnqualified() != Elem)
    const_cast<Type *>(Arr)->Unqualified =
        getArray(Elem->getUnqualified(), Count);
  return Arr;
}

const Type *TypeContext::getOpaque(const std::string &Spelling) {
  return make(Type::Kind::Opaque, nullptr, 0, false, Spelling);
}

const Type *TypeContext::getTape(const Type *Elem, unsigned Capacity,
                                 TapePlacement Placement) {
  Elem = Elem->getUnqualified();
  std::string Spelling = "meshad::Tape<" + spellType(Elem);
  // A per-thread array of exactly the bound: no more local memory than the
  // values need, and no overflow trap when the bound exceeds the default.
  if (Placement != TapePlacement::Heap && Capacity > 0 &&
      Capacity <= MaxStaticCapacity)
    Spelling += ", " + std::to_string(Capacity);
  return make(Type::Kind::Tape, Elem, Capacity, false, Spelling + ">",
              Placement);
}

const Type *TypeContext::getPair(const Type *Elem) {
  Elem = Elem->getUnqualified();
  std::string T = spellType(Elem);
  return make(Type::Kind::Pair, Elem, 0, false,
              "meshad::ValueAndPushforward<" + T + ", " + T + ">");
}

const Type *TypeContext::getConst(const Type *Ty) {
  if (Ty->isConst())
    return Ty;
  if (Ty->isArray())
    return getArray(getConst(Ty->getElement()), Ty->getCount());
  const Type *C = make(Ty->getKind(), Ty->getElement(), Ty->getCount(), true,
                       Ty->getSpelling(), Ty->getTapePlacement());
  const_cast<Type *>(C)->Unqualified = Ty;
  return C;
}

//===----------------------------------------------------------------------===//
// Spelling
//===----------------------------------------------------------------------===//

/// The spelling of a type that has no element (the declaration specifier).
static std::string spellBase(const Type *Ty) {
  std::string Prefix = Ty->isConst() ? "const " : "";
  switch (Ty->getKind()) {
  case Type::Kind::Void:
    return Prefix + "void";
  case Type::Kind::Bool:
    return Prefix + "bool";
  case Type::Kind::Float:
    return Prefix + "float";
  case Type::Kind::Double:
    return Prefix + "double";
  case Type::Kind::Int:
  case Type::Kind::Vector:
  case Type::Kind::Opaque:
  case Type::Kind::Tape:
  case Type::Kind::Pair:
  case Type::Kind::Pointer:
  case Type::Kind::Array:
    break;
  }
  return Prefix + Ty->getSpelling();
}

std::string ir::spellDeclaration(const Type *Ty, const std::string &Name) {
  // Build the declarator inside out: pointers prefix it, arrays suffix it,
  // and a pointer to an array needs parentheses.
  std::string Declarator = Name;
  while (Ty->isIndexable()) {
    if (Ty->isPointer()) {
      std::string Inner = "*";
      if (Ty->isConst())
        Inner += Declarator.empty() ? "const" : "const ";
      Declarator = Inner + Declarator;
      if (Ty->getElement()->isArray())
        Declarator = "(" + Declarator + ")";
    } else {
      Declarator += "[" + std::to_string(Ty->getCount()) + "]";
    }
    Ty = Ty->getElement();
  }
  std::string Base = spellBase(Ty);
  return Declarator.empty() ? Base : Base + " " + Declarator;
}

std::string ir::spellType(const Type *Ty) { return spellDeclaration(Ty, ""); }
