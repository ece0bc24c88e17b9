//===- AD/HessianRepeats.cpp - Repeated entries of a lane Hessian ---------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// shareRepeatedEntries: the entries on and below the diagonal of a
/// straight-line Hessian, evaluated symbolically as polynomials with
/// numeric coefficients over atoms (the function's scalar parameters, its
/// array parameters' elements at constant indices, math calls and
/// reciprocals of canonical arguments), are compared: an entry equal to an
/// earlier one, or to its negation, is not computed but copied (a spring's
/// blocks +-K: 6 values, not 21); one whose polynomial is 0 is a structural
/// zero. Equal canonical forms are equal values in exact arithmetic, so a
/// copy differs from the entry's own computation by rounding only. A
/// product too large to expand becomes an atom of its own, which equals
/// only the same product of the same factors: fewer repeats are found,
/// none is wrong.
///
//===----------------------------------------------------------------------===//

#include "AD/Hessian.h"
#include "IR/Builder.h"
#include "IR/Clone.h"
#include "IR/Traversal.h"

#include <algorithm>
#include <cstdio>
#include <map>

using namespace meshad;
using namespace meshad::ir;
using llvm::dyn_cast;
using llvm::dyn_cast_or_null;
using llvm::isa;

namespace {

/// Sorted atom ids, with repeats (x * x: {x, x}).
using Monomial = std::vector<int>;
using Poly = std::map<Monomial, double>;

constexpr size_t MaxTerms = 256;

class EntryEvaluator {
public:
  EntryEvaluator(const Function &F, const Var *H) : F(F), H(H) {}

  /// The polynomial of every entry added to; false when the body is not
  /// straight-line code of the forms this evaluator knows.
  bool run(std::map<long long, Poly> &Entries);
  std::string key(const Poly &P) const;

private:
  bool stmt(const Stmt *S, std::map<long long, Poly> &Entries);
  bool decl(const DeclStmt *D);
  /// What \p A writes: a local, an element of a local array, or an entry
  /// of H; null when unknown, or for a copy to a mirror (\p Mirror).
  Poly *target(const AssignStmt *A, std::map<long long, Poly> &Entries,
               bool &Mirror);
  std::optional<Poly> eval(const Expr *E);
  std::optional<Poly> binary(const BinaryExpr *B);
  /// The key of an integer expression of literals and integer parameters
  /// that F never assigns, or none.
  std::optional<std::string> invariantIndex(const Expr *E);
  int atom(const std::string &Key) {
    auto It = Atoms.find(Key);
    if (It != Atoms.end())
      return It->second;
    int Id = Atoms.size();
    Atoms[Key] = Id;
    return Id;
  }
  Poly atomPoly(const std::string &Key) { return {{{atom(Key)}, 1.0}}; }
  /// A local (element \p I, -1 for a scalar) read before it is written
  /// (a tape saving it before it is overwritten): some fixed value.
  Poly undefined(const Var *V, long long I) {
    return atomPoly("undef:" + std::to_string(reinterpret_cast<uintptr_t>(V)) +
                    "[" + std::to_string(I) + "]");
  }
  static Poly constant(double C) {
    return C == 0 ? Poly() : Poly{{Monomial(), C}};
  }
  static Poly add(const Poly &A, const Poly &B, double Scale);
  Poly mul(const Poly &A, const Poly &B);

  const Function &F;
  const Var *H;
  /// (local, element or -1 for a scalar) -> its value.
  std::map<std::pair<const Var *, long long>, Poly> Env;
  std::map<std::string, int> Atoms;
};

} // namespace

Poly EntryEvaluator::add(const Poly &A, const Poly &B, double Scale) {
  Poly Out = A;
  for (auto &[M, C] : B) {
    double &Slot = Out[M];
    Slot += Scale * C;
    if (Slot == 0)
      Out.erase(M);
  }
  return Out;
}

Poly EntryEvaluator::mul(const Poly &A, const Poly &B) {
  if (A.size() * B.size() > MaxTerms)
    return atomPoly("mul(" + key(A) + ")(" + key(B) + ")");
  Poly Out;
  for (auto &[MA, CA] : A)
    for (auto &[MB, CB] : B) {
      Monomial M = MA;
      M.insert(M.end(), MB.begin(), MB.end());
      std::sort(M.begin(), M.end());
      double &Slot = Out[M];
      Slot += CA * CB;
      if (Slot == 0)
        Out.erase(M);
    }
  return Out;
}

std::string EntryEvaluator::key(const Poly &P) const {
  std::string Key;
  char Buf[32];
  for (auto &[M, C] : P) {
    std::snprintf(Buf, sizeof(Buf), "%.17g", C);
    Key += std::string(Buf) + "*";
    for (int A : M)
      Key += "a" + std::to_string(A) + ".";
    Key += "+";
  }
  return Key;
}

std::optional<Poly> EntryEvaluator::binary(const BinaryExpr *B) {
  std::optional<Poly> L = eval(B->getLHS()), R = eval(B->getRHS());
  if (!L || !R)
    return std::nullopt;
  switch (B->getOp()) {
  case BinaryOp::Add:
    return add(*L, *R, 1);
  case BinaryOp::Sub:
    return add(*L, *R, -1);
  case BinaryOp::Mul:
    return mul(*L, *R);
  case BinaryOp::Div:
    if (R->empty())
      return std::nullopt;
    if (R->size() == 1 && R->begin()->first.empty())
      return mul(*L, constant(1.0 / R->begin()->second));
    return mul(*L, atomPoly("inv(" + key(*R) + ")"));
  default:
    return std::nullopt;
  }
}

std::optional<std::string> EntryEvaluator::invariantIndex(const Expr *E) {
  if (const auto *C = dyn_cast<CastExpr>(E))
    return invariantIndex(C->getSub());
  if (const auto *L = dyn_cast<IntLitExpr>(E))
    return std::to_string(L->getValue());
  if (const auto *R = dyn_cast<VarRefExpr>(E)) {
    const Var *V = R->getVar();
    bool Assigned = false;
    forEachStmt(F.getBody(), [&](const Stmt *S) {
      const auto *A = dyn_cast<AssignStmt>(S);
      const auto *To = A ? dyn_cast<VarRefExpr>(A->getLHS()) : nullptr;
      Assigned |= To && To->getVar() == V;
    });
    if (!V->isParam() || !V->getType()->isIntegral() || Assigned)
      return std::nullopt;
    return "p:" + V->getName();
  }
  const auto *B = dyn_cast<BinaryExpr>(E);
  if (!B || (B->getOp() != BinaryOp::Add && B->getOp() != BinaryOp::Sub &&
             B->getOp() != BinaryOp::Mul))
    return std::nullopt;
  std::optional<std::string> L = invariantIndex(B->getLHS()),
                             R = invariantIndex(B->getRHS());
  if (!L || !R)
    return std::nullopt;
  const char *Op = B->getOp() == BinaryOp::Add   ? "+"
                   : B->getOp() == BinaryOp::Sub ? "-"
                                                 : "*";
  return "(" + *L + Op + *R + ")";
}

std::optional<Poly> EntryEvaluator::eval(const Expr *E) {
  if (const auto *L = dyn_cast<FloatLitExpr>(E))
    return constant(L->getValue());
  if (const auto *L = dyn_cast<IntLitExpr>(E))
    return constant(static_cast<double>(L->getValue()));
  if (const auto *R = dyn_cast<VarRefExpr>(E)) {
    const Var *V = R->getVar();
    if (V->isParam() && V->getType()->isFloatingScalar())
      return atomPoly("p:" + V->getName());
    auto It = Env.find({V, -1});
    if (It == Env.end() && V->getType()->isFloatingScalar())
      return undefined(V, -1);
    return It == Env.end() ? std::nullopt : std::optional<Poly>(It->second);
  }
  if (const auto *I = dyn_cast<IndexExpr>(E)) {
    const auto *Base = dyn_cast<VarRefExpr>(I->getBase());
    const auto *Lit = dyn_cast<IntLitExpr>(I->getIndex());
    // An array parameter's element at an index of unassigned integer
    // parameters (P[2 * e] in an element's energy): one atom per index.
    std::optional<std::string> Index =
        Base && !Lit && Base->getVar()->isParam() && Base->getVar() != H
            ? invariantIndex(I->getIndex())
            : std::nullopt;
    if (Index)
      return atomPoly("ld:" + Base->getVar()->getName() + "[" + *Index + "]");
    if (!Base || !Lit || Base->getVar() == H)
      return std::nullopt;
    if (!Base->getVar()->isParam()) {
      auto It = Env.find({Base->getVar(), Lit->getValue()});
      return It == Env.end() ? undefined(Base->getVar(), Lit->getValue())
                             : It->second;
    }
    return atomPoly("ld:" + Base->getVar()->getName() + "[" +
                    std::to_string(Lit->getValue()) + "]");
  }
  if (const auto *C = dyn_cast<CastExpr>(E))
    return E->getType()->isFloatingScalar() ? eval(C->getSub()) : std::nullopt;
  if (const auto *U = dyn_cast<UnaryExpr>(E)) {
    std::optional<Poly> Sub = eval(U->getSub());
    if (!Sub || U->getOp() == UnaryOp::Plus)
      return Sub;
    return U->getOp() == UnaryOp::Neg ? std::optional<Poly>(add({}, *Sub, -1))
                                      : std::nullopt;
  }
  if (const auto *B = dyn_cast<BinaryExpr>(E))
    return binary(B);
  const auto *C = dyn_cast<CallExpr>(E);
  if (!C || C->getCalleeKind() != CallExpr::CalleeKind::Math)
    return std::nullopt;
  std::string Key = "call:" + C->getName();
  for (const Expr *Arg : C->getArgs()) {
    std::optional<Poly> A = eval(Arg);
    if (!A)
      return std::nullopt;
    Key += "(" + key(*A) + ")";
  }
  return atomPoly(Key);
}

bool EntryEvaluator::decl(const DeclStmt *D) {
  const Type *Ty = D->getVar()->getType();
  if (Ty->isArray() && Ty->getElement()->isFloatingScalar()) {
    // `= {}`: every element 0; no initializer: none known yet.
    const auto *List = dyn_cast_or_null<InitListExpr>(D->getInit());
    if (D->getInit() && (!List || !List->getElements().empty()))
      return false;
    for (unsigned K = 0; D->getInit() && K < Ty->getCount(); ++K)
      Env[{D->getVar(), K}] = Poly();
    return true;
  }
  // An integer local (an element's vertex, a counter left over): ignored,
  // and a read of it is not evaluated (eval gives none for it).
  if (Ty->isIntegral())
    return true;
  if (!Ty->isFloatingScalar())
    return false;
  // No initializer: some fixed value until it is assigned.
  std::optional<Poly> Init = D->getInit()
                                 ? eval(D->getInit())
                                 : std::optional<Poly>(undefined(D->getVar(), -1));
  if (!Init)
    return false;
  Env[{D->getVar(), -1}] = *Init;
  return true;
}

Poly *EntryEvaluator::target(const AssignStmt *A,
                             std::map<long long, Poly> &Entries,
                             bool &Mirror) {
  Mirror = false;
  if (const auto *V = dyn_cast<VarRefExpr>(A->getLHS())) {
    auto It = Env.find({V->getVar(), -1});
    return It == Env.end() ? nullptr : &It->second;
  }
  const auto *I = dyn_cast<IndexExpr>(A->getLHS());
  const auto *Base = I ? dyn_cast<VarRefExpr>(I->getBase()) : nullptr;
  const auto *Lit = I ? dyn_cast<IntLitExpr>(I->getIndex()) : nullptr;
  if (!Base || !Lit)
    return nullptr;
  if (Base->getVar() == H) {
    Mirror = A->getOp() == AssignOp::Assign; // A copy to a mirror.
    return Mirror ? nullptr : &Entries[Lit->getValue()];
  }
  if (Base->getVar()->isParam() || !Base->getVar()->getType()->isArray())
    return nullptr;
  // An element of a local array (assigned first: then it is known).
  auto Key = std::make_pair(Base->getVar(), Lit->getValue());
  if (A->getOp() == AssignOp::Assign)
    Env[Key] = Poly();
  auto It = Env.find(Key);
  return It == Env.end() ? nullptr : &It->second;
}

bool EntryEvaluator::stmt(const Stmt *S, std::map<long long, Poly> &Entries) {
  if (isa<CommentStmt>(S))
    return true;
  if (const auto *D = dyn_cast<DeclStmt>(S))
    return decl(D);
  const auto *A = dyn_cast<AssignStmt>(S);
  if (!A || !A->getRHS())
    return false;
  std::optional<Poly> R = eval(A->getRHS());
  bool Mirror;
  Poly *Target = target(A, Entries, Mirror);
  if (Mirror)
    return true;
  if (!Target || !R)
    return false;
  switch (A->getOp()) {
  case AssignOp::Assign:
    *Target = *R;
    return true;
  case AssignOp::AddAssign:
  case AssignOp::Accumulate:
    *Target = add(*Target, *R, 1);
    return true;
  case AssignOp::SubAssign:
    *Target = add(*Target, *R, -1);
    return true;
  case AssignOp::MulAssign:
    *Target = mul(*Target, *R);
    return true;
  default:
    return false;
  }
}

bool EntryEvaluator::run(std::map<long long, Poly> &Entries) {
  const std::vector<const Stmt *> &Body = F.getBody()->getBody();
  // The first statement (after the pattern comment, if any) is the fill.
  bool SeenFill = false;
  for (const Stmt *S : Body) {
    if (!SeenFill && isa<ForStmt>(S)) {
      SeenFill = true;
      continue;
    }
    if (!stmt(S, Entries))
      return false;
  }
  return SeenFill;
}

namespace {

/// The value and sign of every entry on and below the diagonal, with the
/// entry that computes each value.
struct Classes {
  std::map<long long, std::pair<int, int>> Of;
  std::map<int, long long> Representative;
  int NumValues = 0;
};

Classes classify(const EntryEvaluator &Eval,
                 const std::map<long long, Poly> &Entries, unsigned K) {
  Classes C;
  std::map<std::string, int> ValueOfKey;
  for (auto &[E, Value] : Entries) {
    if (E % K > E / K)
      continue;
    if (Value.empty()) { // A symbolic zero.
      C.Of[E] = {-1, 1};
      continue;
    }
    Poly Neg;
    for (auto &[Mono, Coef] : Value)
      Neg[Mono] = -Coef;
    std::string Key = Eval.key(Value);
    auto It = ValueOfKey.find(Key), NegIt = ValueOfKey.find(Eval.key(Neg));
    if (It != ValueOfKey.end()) {
      C.Of[E] = {It->second, 1};
    } else if (NegIt != ValueOfKey.end()) {
      C.Of[E] = {NegIt->second, -1};
    } else {
      ValueOfKey[Key] = C.NumValues;
      C.Representative[C.NumValues] = E;
      C.Of[E] = {C.NumValues++, 1};
    }
  }
  return C;
}

} // namespace

bool meshad::shareRepeatedEntries(Module &M, Function &F, Var *H,
                                  HessianPatternInfo &P) {
  EntryEvaluator Eval(F, H);
  std::map<long long, Poly> Entries;
  if (P.NumValues == P.Size * P.Size || !Eval.run(Entries))
    return false;
  unsigned K = P.Size;
  Classes C = classify(Eval, Entries, K);
  P.NumValues = C.NumValues;
  P.Value.assign(K * K, -1);
  P.Sign.assign(K * K, 1);
  for (auto &[E, VS] : C.Of) {
    long long Mirror = (E % K) * K + E / K;
    P.Value[E] = P.Value[Mirror] = VS.first;
    P.Sign[E] = P.Sign[Mirror] = VS.second;
  }
  // Adds only into representatives; every other nonzero entry a copy.
  IRBuilder B(M);
  IRCloner Cl(M);
  Cl.setStmtHook([&](const Stmt *S) -> std::optional<const Stmt *> {
    const auto *A = dyn_cast<AssignStmt>(S);
    const auto *I = A ? dyn_cast<IndexExpr>(A->getLHS()) : nullptr;
    const auto *Base = I ? dyn_cast<VarRefExpr>(I->getBase()) : nullptr;
    const auto *Lit = I ? dyn_cast<IntLitExpr>(I->getIndex()) : nullptr;
    if (!Base || Base->getVar() != H || !Lit)
      return std::nullopt; // The fill.
    long long E = Lit->getValue();
    if (A->getOp() == AssignOp::Assign || P.Value[E] < 0 ||
        C.Representative[P.Value[E]] != E)
      return nullptr; // Copies are made below.
    return std::nullopt;
  });
  BlockStmt *Body = Cl.cloneBlock(F.getBody());
  for (unsigned E = 0; E < K * K; ++E) {
    int V = P.Value[E];
    if (V < 0 || C.Representative[V] == E)
      continue;
    const Expr *From = B.index(B.ref(H), B.intLit(C.Representative[V]));
    Body->append(B.assign(B.index(B.ref(H), B.intLit(E)), AssignOp::Assign,
                          P.Sign[E] < 0 ? B.neg(From) : From));
  }
  F.setBody(Body);
  return true;
}
