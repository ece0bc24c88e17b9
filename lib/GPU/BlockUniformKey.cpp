//===- GPU/BlockUniformKey.cpp - One key for a loop's uniform adds --------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//

#include "GPU/BlockUniformKey.h"
#include "IR/Traversal.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"

#include <climits>

using namespace meshad;
using namespace meshad::ir;
using llvm::dyn_cast;

namespace {

/// An integer expression as Scale * V + Offset (V null: a constant).
struct Linear {
  const Var *V = nullptr;
  long long Scale = 0;
  long long Offset = 0;
};

bool fitsInt(long long X) { return X >= INT_MIN && X <= INT_MAX; }

bool checked(Linear &L) { return fitsInt(L.Scale) && fitsInt(L.Offset); }

bool linearIn(const Expr *E, Linear &L);

/// \p X op \p Y for + and -, when both name the same variable or one none.
bool combine(BinaryOp Op, const Linear &X, const Linear &Y, Linear &L) {
  if (X.V && Y.V && X.V != Y.V)
    return false;
  long long Sign = Op == BinaryOp::Sub ? -1 : 1;
  L = {X.V ? X.V : Y.V, X.Scale + Sign * Y.Scale, X.Offset + Sign * Y.Offset};
  return checked(L);
}

bool linearBinary(const BinaryExpr *B, Linear &L) {
  Linear X, Y;
  if (!linearIn(B->getLHS(), X) || !linearIn(B->getRHS(), Y))
    return false;
  switch (B->getOp()) {
  case BinaryOp::Add:
  case BinaryOp::Sub:
    return combine(B->getOp(), X, Y, L);
  case BinaryOp::Mul:
    if (X.V && Y.V)
      return false;
    if (X.V)
      std::swap(X, Y); // X is the constant
    L = {Y.V, X.Offset * Y.Scale, X.Offset * Y.Offset};
    return checked(L);
  default:
    return false;
  }
}

/// \p E, an integer expression of integer literals and variables with
/// + - * by constants (of one type, no casts), as a Linear.
bool linearIn(const Expr *E, Linear &L) {
  if (!E->getType()->isIntegral())
    return false;
  if (const auto *I = dyn_cast<IntLitExpr>(E)) {
    L = {nullptr, 0, I->getValue()};
    return checked(L);
  }
  if (const auto *R = dyn_cast<VarRefExpr>(E)) {
    L = {R->getVar(), 1, 0};
    return true;
  }
  if (const auto *U = dyn_cast<UnaryExpr>(E)) {
    if (U->getOp() != UnaryOp::Neg && U->getOp() != UnaryOp::Plus)
      return false;
    if (!linearIn(U->getSub(), L))
      return false;
    if (U->getOp() == UnaryOp::Neg)
      L = {L.V, -L.Scale, -L.Offset};
    return checked(L);
  }
  if (const auto *B = dyn_cast<BinaryExpr>(E))
    return B->getType() == B->getLHS()->getType() &&
           B->getType() == B->getRHS()->getType() && linearBinary(B, L);
  return false;
}

/// The statements that assign \p V in \p Body (declarations included).
std::vector<const Stmt *> assignmentsOf(const BlockStmt *Body, const Var *V) {
  std::vector<const Stmt *> Out;
  forEachStmt(Body, [&](const Stmt *S) {
    const auto *A = dyn_cast<AssignStmt>(S);
    const auto *R = A ? dyn_cast<VarRefExpr>(A->getLHS()) : nullptr;
    const auto *D = dyn_cast<DeclStmt>(S);
    if ((R && R->getVar() == V) || (D && D->getVar() == V))
      Out.push_back(S);
  });
  return Out;
}

bool isPlainAssignment(const Stmt *S) {
  if (const auto *A = dyn_cast<AssignStmt>(S))
    return A->getOp() == AssignOp::Assign;
  return llvm::cast<DeclStmt>(S)->getInit() != nullptr;
}

/// Where \p Key's one assignment leaves the register set for every add:
/// sets \p K.After, or returns why not. The adds must follow it in its
/// block (at any depth), so that every lane that adds has assigned it.
std::string placeRecord(const BlockStmt *Body,
                        llvm::ArrayRef<const AssignStmt *> Adds,
                        UniformKey &K) {
  std::vector<const Stmt *> Assigns = assignmentsOf(Body, K.Key);
  const std::string Name = "'" + K.Key->getName() + "'";
  if (Assigns.empty())
    return "";
  if (Assigns.size() > 1 || !isPlainAssignment(Assigns.front()))
    return "the key " + Name + " changes more than once in an iteration";
  const BlockStmt *Blk = blockHolding(Body, Assigns.front());
  if (!Blk)
    return "the key " + Name + " is assigned in a nested loop";
  llvm::DenseSet<const Stmt *> After;
  const std::vector<const Stmt *> &Stmts = Blk->getBody();
  for (auto It = llvm::find(Stmts, Assigns.front()) + 1; It != Stmts.end();
       ++It)
    forEachStmt(*It, [&](const Stmt *S) { After.insert(S); });
  for (const AssignStmt *A : Adds)
    if (!After.count(A))
      return "an add is not after the assignment of the key " + Name +
             " in its block";
  K.After = Assigns.front();
  return "";
}

} // namespace

std::optional<UniformKey>
meshad::findUniformKey(const BlockStmt *Body,
                       llvm::ArrayRef<const AssignStmt *> Adds,
                       llvm::function_ref<bool(const Var *)> AddressTaken,
                       std::string &Why) {
  UniformKey K;
  for (const AssignStmt *A : Adds) {
    const Expr *Index = llvm::cast<IndexExpr>(A->getLHS())->getIndex();
    Linear L;
    if (!linearIn(Index, L) || (L.V && K.Key && L.V != K.Key)) {
      Why = "the indices are not one integer variable times a constant plus "
            "a constant";
      return std::nullopt;
    }
    if (L.V)
      K.Key = L.V;
    K.Forms.push_back({L.Scale, L.Offset});
  }
  if (!K.Key) {
    Why = "the indices are constants";
    return std::nullopt;
  }
  if (AddressTaken(K.Key)) {
    Why = "the address of the key '" + K.Key->getName() + "' is taken";
    return std::nullopt;
  }
  Why = placeRecord(Body, Adds, K);
  if (!Why.empty())
    return std::nullopt;
  return K;
}

const BlockStmt *meshad::blockHolding(const BlockStmt *Blk, const Stmt *S) {
  if (llvm::is_contained(Blk->getBody(), S))
    return Blk;
  for (const Stmt *X : Blk->getBody()) {
    const BlockStmt *Found = nullptr;
    if (const auto *Sub = dyn_cast<BlockStmt>(X))
      Found = blockHolding(Sub, S);
    else if (const auto *I = dyn_cast<IfStmt>(X)) {
      Found = blockHolding(I->getThen(), S);
      if (!Found && I->getElse())
        Found = blockHolding(I->getElse(), S);
    }
    if (Found)
      return Found;
  }
  return nullptr;
}
