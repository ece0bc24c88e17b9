//===- IR/Builder.h - Building IR with light folding -------------*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// IRBuilder creates IR nodes in a Module and folds the trivial algebra that
/// derivative code is full of (0 * x, x * 1, 0 + x, -(-x)), so that emitted
/// derivatives read like hand-written ones. A null expression pointer stands
/// for a structurally zero derivative throughout the transforms; the builder's
/// arithmetic accepts nulls as zeros.
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_IR_BUILDER_H
#define MESHAD_IR_BUILDER_H

#include "IR/IR.h"

namespace meshad {
namespace ir {

/// Builds expressions and statements, folding zeros (nulls) and ones.
///
/// \code
///   IRBuilder B(M);
///   const Expr *T = B.add(B.mul(DA, Bv), B.mul(Av, DB)); // null if both zero
/// \endcode
class IRBuilder {
public:
  explicit IRBuilder(Module &M) : M(M) {}

  Module &getModule() { return M; }
  TypeContext &types() { return M.getTypes(); }

  //===--- Literals and references -------------------------------------===//

  const Expr *floatLit(const Type *Ty, double V) {
    return M.create<FloatLitExpr>(Ty, V, "");
  }
  const Expr *intLit(long long V, const Type *Ty = nullptr) {
    return M.create<IntLitExpr>(Ty ? Ty : types().getInt("int"), V, "");
  }
  /// A literal zero of \p Ty (scalar), or `{}` for vectors/arrays.
  const Expr *zero(const Type *Ty) {
    if (Ty->isFloatingScalar())
      return floatLit(Ty, 0.0);
    if (Ty->isIntegral())
      return intLit(0, Ty);
    return M.create<InitListExpr>(Ty, std::vector<const Expr *>());
  }
  const Expr *ref(Var *V) { return M.create<VarRefExpr>(V); }

  /// Cheap to evaluate twice: variables, literals, built-ins, loads and
  /// members of those, casts and negations of them. Anything else that a
  /// derivative repeats is stored in a temporary first.
  static bool isCheap(const Expr *E) {
    switch (E->getKind()) {
    case Expr::Kind::FloatLit:
    case Expr::Kind::IntLit:
    case Expr::Kind::BoolLit:
    case Expr::Kind::VarRef:
    case Expr::Kind::Builtin:
      return true;
    case Expr::Kind::Member:
      return isCheap(llvm::cast<MemberExpr>(E)->getBase());
    case Expr::Kind::Index:
      return isCheap(llvm::cast<IndexExpr>(E)->getBase());
    case Expr::Kind::Cast:
      return isCheap(llvm::cast<CastExpr>(E)->getSub());
    case Expr::Kind::Unary:
      return llvm::cast<UnaryExpr>(E)->getOp() == UnaryOp::Neg &&
             isCheap(llvm::cast<UnaryExpr>(E)->getSub());
    default:
      return false;
    }
  }

  static bool isLiteral(const Expr *E, double V) {
    if (const auto *F = llvm::dyn_cast_or_null<FloatLitExpr>(E))
      return F->getValue() == V;
    if (const auto *I = llvm::dyn_cast_or_null<IntLitExpr>(E))
      return static_cast<double>(I->getValue()) == V;
    return false;
  }

  //===--- Arithmetic with folding (null = 0) ---------------------------===//

  const Expr *add(const Expr *A, const Expr *B) {
    if (!A || isLiteral(A, 0))
      return B;
    if (!B || isLiteral(B, 0))
      return A;
    if (const auto *U = llvm::dyn_cast<UnaryExpr>(B))
      if (U->getOp() == UnaryOp::Neg)
        return binary(BinaryOp::Sub, A, U->getSub());
    return binary(BinaryOp::Add, A, B);
  }
  const Expr *sub(const Expr *A, const Expr *B) {
    if (!B || isLiteral(B, 0))
      return A;
    if (!A || isLiteral(A, 0))
      return neg(B);
    return binary(BinaryOp::Sub, A, B);
  }
  const Expr *mul(const Expr *A, const Expr *B) {
    if (!A || !B || isLiteral(A, 0) || isLiteral(B, 0))
      return nullptr;
    if (isLiteral(A, 1))
      return B;
    if (isLiteral(B, 1))
      return A;
    if (isLiteral(A, -1))
      return neg(B);
    if (isLiteral(B, -1))
      return neg(A);
    return binary(BinaryOp::Mul, A, B);
  }
  /// A / B; a null (zero) numerator gives null. B must not be null.
  const Expr *div(const Expr *A, const Expr *B) {
    if (!A || isLiteral(A, 0))
      return nullptr;
    if (isLiteral(B, 1))
      return A;
    return binary(BinaryOp::Div, A, B);
  }
  const Expr *neg(const Expr *A) {
    if (!A || isLiteral(A, 0))
      return nullptr;
    if (const auto *U = llvm::dyn_cast<UnaryExpr>(A))
      if (U->getOp() == UnaryOp::Neg)
        return U->getSub();
    return M.create<UnaryExpr>(A->getType(), UnaryOp::Neg, A);
  }
  /// A binary expression whose type is the arithmetic result of A and B
  /// (comparisons and logical operators give bool).
  const Expr *binary(BinaryOp Op, const Expr *A, const Expr *B) {
    const Type *Ty = isComparisonOrLogical(Op) ? types().getBool()
                                               : arithmeticType(A, B);
    return M.create<BinaryExpr>(Ty, Op, A, B);
  }
  const Expr *unary(UnaryOp Op, const Expr *A, const Type *Ty) {
    return M.create<UnaryExpr>(Ty, Op, A);
  }
  const Expr *select(const Expr *C, const Expr *T, const Expr *F,
                     const Type *Ty) {
    return M.create<ConditionalExpr>(Ty, C, T, F);
  }
  const Expr *cast(const Type *Ty, const Expr *E) {
    if (E->getType() == Ty)
      return E;
    if (const auto *C = llvm::dyn_cast<CastExpr>(E))
      if (C->getType() == Ty)
        return E;
    return M.create<CastExpr>(Ty, E);
  }
  /// \p E if non-null, else a literal zero of \p Ty.
  const Expr *orZero(const Expr *E, const Type *Ty) {
    return E ? E : zero(Ty);
  }

  //===--- Memory -------------------------------------------------------===//

  const Expr *index(const Expr *Base, const Expr *Idx) {
    const Type *BT = Base->getType();
    const Type *Elem = BT->isIndexable() ? BT->getElement() : BT;
    return M.create<IndexExpr>(Elem, Base, Idx);
  }
  const Expr *member(const Expr *Base, const std::string &Field,
                     const Type *Ty, bool Arrow = false) {
    return M.create<MemberExpr>(Ty, Base, Field, Arrow);
  }
  /// Member \p I of the pair \p P (Type::isPair): `P.value` (0) or
  /// `P.pushforward` (1).
  const Expr *pairMember(const Expr *P, unsigned I) {
    return member(P, Type::getPairField(I), P->getType()->getElement());
  }
  /// The pair {Value, Tangent} of type \p PairTy.
  const Expr *pair(const Type *PairTy, const Expr *Value, const Expr *Tangent) {
    return M.create<InitListExpr>(PairTy,
                                  std::vector<const Expr *>{Value, Tangent});
  }
  const Expr *addrOf(const Expr *E) {
    return M.create<UnaryExpr>(types().getPointer(E->getType()),
                               UnaryOp::AddrOf, E);
  }

  //===--- Statements ---------------------------------------------------===//

  DeclStmt *decl(Var *V, const Expr *Init) {
    return M.create<DeclStmt>(V, Init);
  }
  AssignStmt *assign(const Expr *LHS, AssignOp Op, const Expr *RHS) {
    return M.create<AssignStmt>(LHS, Op, RHS);
  }
  /// `LHS += RHS` with the form of the add left to the GPU lowering.
  AssignStmt *accumulate(const Expr *LHS, const Expr *RHS) {
    return M.create<AssignStmt>(LHS, AssignOp::Accumulate, RHS);
  }
  BlockStmt *block() { return M.create<BlockStmt>(); }

private:
  /// The usual arithmetic conversions, reduced to what derivative code needs:
  /// double wins over float, floating over integral, vectors over scalars.
  const Type *arithmeticType(const Expr *A, const Expr *B) {
    const Type *TA = A->getType(), *TB = B->getType();
    if (TA == TB)
      return TA;
    if (TA->isVector())
      return TA;
    if (TB->isVector())
      return TB;
    // Pointer arithmetic on an array (_d_w + 1): the array decays.
    if (TA->isArray())
      return types().getPointer(TA->getElement());
    if (TB->isArray())
      return types().getPointer(TB->getElement());
    if (TA->isPointer())
      return TA;
    if (TB->isPointer())
      return TB;
    if (TA->getKind() == Type::Kind::Double ||
        TB->getKind() == Type::Kind::Double)
      return types().getDouble();
    if (TA->isFloatingScalar())
      return TA;
    if (TB->isFloatingScalar())
      return TB;
    return TA;
  }

  Module &M;
};

} // namespace ir
} // namespace meshad

#endif // MESHAD_IR_BUILDER_H
