//===- IR/Type.h - Types of the meshad IR ------------------------*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The small type system of the meshad IR. Types are uniqued by a TypeContext
/// and compared by pointer. Only what differentiation needs to know is
/// modelled: floating scalars, CUDA vector types (float3, double3...),
/// pointers, fixed-size arrays; everything else (integers, bool, structs the
/// IR does not look into) keeps its source spelling so that it can be emitted
/// as written.
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_IR_TYPE_H
#define MESHAD_IR_TYPE_H

#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

namespace meshad {
namespace ir {

/// Where a tape keeps its values, from where the function that owns it runs
/// (chosen by reverse mode).
enum class TapePlacement {
  /// Device code: per-thread registers/local memory, a fixed capacity;
  /// overflowing it traps.
  Local,
  /// Host code: an inline buffer, then the heap, growing as needed.
  Heap,
  /// __host__ __device__ code: Local on the device, Heap on the host.
  LocalOrHeap,
};

/// An IR type. Immutable; create through TypeContext.
class Type {
public:
  enum class Kind {
    Void,
    Bool,
    Int,     ///< Any integer type; Spelling says which ("int", "size_t").
    Float,   ///< 32-bit IEEE.
    Double,  ///< 64-bit IEEE.
    Vector,  ///< CUDA vector type of floating elements: float3, double2...
    Pointer, ///< Pointer to Elem (Elem may be const).
    Array,   ///< Fixed-size array of Count Elem.
    Opaque,  ///< A type the IR only carries around (uint3, dim3, structs).
    Tape,    ///< meshad::Tape<Elem>: a LIFO of saved values (reverse mode).
    Pair,    ///< meshad::ValueAndPushforward<Elem, Elem>: a value and its
             ///< tangent, the result of a pushforward.
  };

  Kind getKind() const { return K; }
  /// Pointee, array element or vector component type.
  const Type *getElement() const { return Elem; }
  /// Array length or vector width.
  unsigned getCount() const { return Count; }
  bool isConst() const { return Const; }
  /// Source spelling for Int, Vector and Opaque types ("int", "float3").
  const std::string &getSpelling() const { return Spelling; }

  bool isVoid() const { return K == Kind::Void; }
  bool isFloatingScalar() const {
    return K == Kind::Float || K == Kind::Double;
  }
  bool isPointer() const { return K == Kind::Pointer; }
  bool isArray() const { return K == Kind::Array; }
  bool isVector() const { return K == Kind::Vector; }
  bool isIntegral() const { return K == Kind::Int || K == Kind::Bool; }
  /// Pointer or array: something that is indexed.
  bool isIndexable() const { return isPointer() || isArray(); }
  /// A tape of values of type getElement(), filled by the intrinsic
  /// meshad::push and emptied by meshad::pop. A tape of differentiable values
  /// is differentiable: forward mode keeps a tape of tangents beside it
  /// (of the same type: same capacity, same placement).
  bool isTape() const { return K == Kind::Tape; }
  /// A bound on the values a tape ever holds when reverse mode knows one
  /// (the product of the constant trip counts of the loops around its
  /// push), else 0: dynamic.
  unsigned getTapeCapacity() const { return Count; }
  TapePlacement getTapePlacement() const { return Placement; }

  /// meshad::ValueAndPushforward<Elem, Elem>, what a pushforward returns:
  /// members `value` (getPairField(0)) and `pushforward` (getPairField(1)),
  /// both of type getElement(). A first-class value: a pair of
  /// differentiable values is differentiable, its tangent and its adjoint
  /// are pairs too (the tangent of `p.value` is `_d_p.value`), so modes
  /// compose over forward mode's output.
  bool isPair() const { return K == Kind::Pair; }
  /// The name of member \p I (0: "value", 1: "pushforward") of a pair.
  static const char *getPairField(unsigned I) {
    return I == 0 ? "value" : "pushforward";
  }

  /// True for values that carry derivatives: floating scalars, vectors and
  /// pairs of those.
  bool isDifferentiableValue() const {
    return isFloatingScalar() || isVector() ||
           (isPair() && Elem->isDifferentiableValue());
  }
  /// True for values, pointers or arrays whose innermost element is
  /// differentiable: these get tangents/adjoints.
  bool isDifferentiable() const;

  /// The innermost element of nested pointers/arrays (or this type).
  const Type *getScalarElement() const;

  /// The non-const version of this type (for declaring shadows).
  const Type *getUnqualified() const { return Unqualified; }

private:
  friend class TypeContext;
  Type(Kind K, const Type *Elem, unsigned Count, bool Const,
       std::string Spelling, TapePlacement Placement)
      : K(K), Elem(Elem), Count(Count), Const(Const),
        Spelling(std::move(Spelling)), Placement(Placement) {}

  Kind K;
  const Type *Elem;
  unsigned Count;
  bool Const;
  std::string Spelling;
  TapePlacement Placement;
  const Type *Unqualified = this;
};

/// Owns and uniques IR types.
class TypeContext {
public:
  TypeContext();
  TypeContext(const TypeContext &) = delete;
  TypeContext &operator=(const TypeContext &) = delete;

  const Type *getVoid() const { return VoidTy; }
  const Type *getBool() const { return BoolTy; }
  const Type *getFloat() const { return FloatTy; }
  const Type *getDouble() const { return DoubleTy; }
  /// An integer type spelled \p Spelling ("int", "unsigned int", "size_t").
  const Type *getInt(const std::string &Spelling = "int");
  /// A CUDA vector type such as float3 (\p Elem float or double).
  const Type *getVector(const Type *Elem, unsigned Width);
  const Type *getPointer(const Type *Pointee);
  const Type *getArray(const Type *Elem, unsigned Count);
  const Type *getOpaque(const std::string &Spelling);
  /// A tape of \p Elem holding at most \p Capacity values (0: unknown),
  /// placed as \p Placement says. Spelled meshad::Tape<Elem, Capacity>, a
  /// fixed per-thread array of exactly that size, when the tape lives in
  /// device memory and the bound is known and at most MaxStaticCapacity;
  /// else meshad::Tape<Elem> (MESHAD_TAPE_CAPACITY values per thread on the
  /// device, growing on the heap on the host).
  const Type *getTape(const Type *Elem, unsigned Capacity = 0,
                      TapePlacement Placement = TapePlacement::LocalOrHeap);
  /// The largest tape given a fixed capacity (values per thread).
  static constexpr unsigned MaxStaticCapacity = 1024;
  /// meshad::ValueAndPushforward<Elem, Elem> (see Type::isPair).
  const Type *getPair(const Type *Elem);
  /// \p Ty with const added (scalars, vectors, opaque types).
  const Type *getConst(const Type *Ty);

private:
  const Type *make(Type::Kind K, const Type *Elem, unsigned Count, bool Const,
                   const std::string &Spelling,
                   TapePlacement Placement = TapePlacement::LocalOrHeap);

  using Key = std::tuple<int, const Type *, unsigned, bool, std::string, int>;
  std::map<Key, std::unique_ptr<Type>> Types;
  const Type *VoidTy, *BoolTy, *FloatTy, *DoubleTy;
};

/// C spelling of a type with an optional declarator name, e.g.
/// ("const double *", "x") or ("double [3]", "a") as "double a[3]".
std::string spellDeclaration(const Type *Ty, const std::string &Name);
/// C spelling of a type alone (for casts and template arguments).
std::string spellType(const Type *Ty);

} // namespace ir
} // namespace meshad

#endif // MESHAD_IR_TYPE_H
