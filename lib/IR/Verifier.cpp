//===- IR/Verifier.cpp - Checking that IR is well formed ------------------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//

#include "IR/Verifier.h"
#include "IR/Intrinsics.h"
#include "IR/Traversal.h"
#include "Rules/ThrustRecipes.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringMap.h"

#include <algorithm>
#include <vector>

using namespace meshad;
using namespace meshad::ir;
using llvm::cast;
using llvm::dyn_cast;

namespace {

/// The locals whose value depends on the thread index (threadIdx), through
/// variables only.
class ThreadDependence {
public:
  explicit ThreadDependence(const Function &F);
  bool dependsOnThread(const Expr *E) const;

private:
  bool noteStore(const Var *V, const Expr *Value);
  llvm::SmallPtrSet<const Var *, 8> Varying;
};

ThreadDependence::ThreadDependence(const Function &F) {
  if (!F.getBody())
    return;
  bool Changed = true;
  while (Changed) {
    Changed = false;
    forEachStmt(F.getBody(), [&](const Stmt *S) {
      if (const auto *D = dyn_cast<DeclStmt>(S))
        Changed |= noteStore(D->getVar(), D->getInit());
      else if (const auto *A = dyn_cast<AssignStmt>(S))
        if (const auto *R = dyn_cast<VarRefExpr>(A->getLHS()))
          Changed |= noteStore(R->getVar(), A->getRHS());
    });
  }
}

bool ThreadDependence::noteStore(const Var *V, const Expr *Value) {
  if (!Value || Varying.count(V) || !dependsOnThread(Value))
    return false;
  Varying.insert(V);
  return true;
}

bool ThreadDependence::dependsOnThread(const Expr *E) const {
  bool Found = false;
  if (E)
    forEachExpr(E, [&](const Expr *X) {
      if (const auto *B = dyn_cast<BuiltinExpr>(X))
        Found |= B->getBuiltin() == BuiltinExpr::Builtin::ThreadIdx;
      else if (const auto *R = dyn_cast<VarRefExpr>(X))
        Found |= Varying.count(R->getVar()) != 0;
    });
  return Found;
}

bool isLValue(const Expr *E) {
  switch (E->getKind()) {
  case Expr::Kind::VarRef:
  case Expr::Kind::Index:
  case Expr::Kind::Member:
    return true;
  case Expr::Kind::Unary:
    return cast<UnaryExpr>(E)->getOp() == UnaryOp::Deref;
  default:
    return false;
  }
}

/// Opaque types (enums, long double, __half...) are not modelled: they are
/// accepted wherever an arithmetic or integer operand is expected.
bool isArithmeticType(const Type *T) {
  return T->isIntegral() || T->isFloatingScalar() || T->isVector() ||
         T->getKind() == Type::Kind::Opaque;
}

bool isIntegerLike(const Type *T) {
  return T->isIntegral() || T->getKind() == Type::Kind::Opaque;
}

const char *spellBinary(BinaryOp Op) {
  static const char *Names[] = {"+",  "-",  "*",  "/",  "%",  "<",
                                ">",  "<=", ">=", "==", "!=", "&&",
                                "||", "&",  "|",  "^",  "<<", ">>"};
  return Names[static_cast<unsigned>(Op)];
}

/// Walks one function, collecting problems.
class Verifier {
public:
  Verifier(const Function &F, VerifyStage Stage)
      : F(F), Stage(Stage), Threads(F) {}
  std::vector<std::string> run();

private:
  void fail(const std::string &Message);
  std::string nameOf(const Expr *E) const;

  // Scopes.
  void declare(const Var *V);
  /// The invariants of a variable's roles (IR.h, VarRoles).
  void checkRoles(const Var *V);
  void checkUse(const Var *V);
  void pushScope() { Scopes.emplace_back(); }
  void popScope() { Scopes.pop_back(); }

  // Statements.
  void checkBlock(const BlockStmt *B, bool NewScope = true);
  void checkStmt(const Stmt *S);
  void checkDecl(const DeclStmt *D);
  void checkAssign(const AssignStmt *A);
  void checkExprStmt(const ExprStmt *S);
  void checkIf(const IfStmt *I);
  void checkLoop(const Stmt *S);
  void checkReturn(const ReturnStmt *R);
  void checkLaunch(const LaunchStmt *L);
  void checkBarrier(const CallExpr *C);
  void checkMarker(const MarkerStmt *M);
  void checkBody(const BlockStmt *Body, const Expr *Cond);

  // Expressions.
  void checkExpr(const Expr *E);
  void checkOperands(const Expr *E);
  void checkUnary(const UnaryExpr *U);
  void checkBinary(const BinaryExpr *B);
  void checkCall(const CallExpr *C);
  /// `.value` / `.pushforward` of a pair, typed as its element.
  void checkPairMember(const MemberExpr *M, const Type *Pair);

  const Function &F;
  VerifyStage Stage;
  ThreadDependence Threads;
  std::vector<llvm::StringMap<const Var *>> Scopes;
  llvm::SmallPtrSet<const Var *, 16> Declared;
  unsigned LoopDepth = 0;
  /// The region markers seen so far (top level, in order).
  std::vector<MarkerStmt::Region> Markers;
  /// The block being checked is the function's body.
  bool AtTopLevel = false;
  /// Enclosing ifs and loops whose condition depends on the thread index.
  unsigned DivergentDepth = 0;
  std::vector<std::string> Problems;
};

void Verifier::fail(const std::string &Message) {
  // A malformation often repeats; a few lines are enough to find it.
  if (Problems.size() < 8 &&
      std::find(Problems.begin(), Problems.end(), Message) == Problems.end())
    Problems.push_back(Message);
}

std::string Verifier::nameOf(const Expr *E) const {
  if (const auto *R = llvm::dyn_cast_or_null<VarRefExpr>(E))
    return "'" + R->getVar()->getName() + "'";
  return "an expression";
}

std::vector<std::string> Verifier::run() {
  pushScope();
  for (const Var *P : F.getParams()) {
    if (!P->isParam())
      fail("parameter '" + P->getName() + "' is not a Param variable");
    declare(P);
  }
  if (F.getBody())
    checkBlock(F.getBody(), /*NewScope=*/false);
  popScope();
  return std::move(Problems);
}

//===----------------------------------------------------------------------===//
// Scopes
//===----------------------------------------------------------------------===//

void Verifier::declare(const Var *V) {
  if (!V) {
    fail("a declaration without a variable");
    return;
  }
  if (!Declared.insert(V).second)
    fail("'" + V->getName() + "' is declared twice");
  checkRoles(V);
  auto [It, New] = Scopes.back().try_emplace(V->getName(), V);
  if (!New && It->second != V)
    fail("two variables named '" + V->getName() + "' in one scope");
}

void Verifier::checkRoles(const Var *V) {
  VarRoles R = V->getRoles();
  std::string What = "'" + V->getName() + "' (" + R.str() + ")";
  if (R.bits() == 0)
    fail(What + " has no role");
  if (R.has(VarRoles::Primal) && !(R == VarRoles::Primal))
    fail(What + " is primal and derived at once");
  // A tape is a Tape; a generated variable of tape type is one.
  if (R.has(VarRoles::Tape) != V->getType()->isTape() &&
      !R.has(VarRoles::Primal))
    fail(What +
         (R.has(VarRoles::Tape) ? " is not of tape type" : " is of tape type"));
  // A tape lives where the function runs: registers or local memory on the
  // device, the heap on the host.
  const Type *Ty = V->getType();
  if (Ty->isTape() && Ty->getTapePlacement() != TapePlacement::LocalOrHeap &&
      (Ty->getTapePlacement() == TapePlacement::Heap) !=
          (F.getTarget() == CudaTarget::HostOnly))
    fail(What + " is a tape placed for another target");
  // Each derivative role takes one order of differentiation.
  unsigned Derivatives =
      R.has(VarRoles::Tangent) + unsigned(R.has(VarRoles::Adjoint));
  if (Derivatives > F.getDerivativeOrder())
    fail(What + " in a function of derivative order " +
         std::to_string(F.getDerivativeOrder()));
}

void Verifier::checkUse(const Var *V) {
  for (auto S = Scopes.rbegin(), E = Scopes.rend(); S != E; ++S) {
    auto It = S->find(V->getName());
    if (It == S->end())
      continue;
    if (It->second != V)
      fail("a use of '" + V->getName() +
           "' names another variable of that name, declared in an inner "
           "scope, in the emitted code");
    return;
  }
  if (V->isGlobal())
    return;
  if (V->isParam())
    fail("'" + V->getName() + "' is a parameter of another function");
  else
    fail("'" + V->getName() +
         "' is used outside the scope of its declaration (or before it)");
}

//===----------------------------------------------------------------------===//
// Statements
//===----------------------------------------------------------------------===//

void Verifier::checkBlock(const BlockStmt *B, bool NewScope) {
  if (!B) {
    fail("a missing block");
    return;
  }
  if (NewScope)
    pushScope();
  bool Top = B == F.getBody();
  for (const Stmt *S : B->getBody()) {
    AtTopLevel = Top;
    checkStmt(S);
  }
  if (NewScope)
    popScope();
}

void Verifier::checkStmt(const Stmt *S) {
  if (!S) {
    fail("a null statement");
    return;
  }
  switch (S->getKind()) {
  case Stmt::Kind::Block:
    return checkBlock(cast<BlockStmt>(S));
  case Stmt::Kind::Decl:
    return checkDecl(cast<DeclStmt>(S));
  case Stmt::Kind::Assign:
    return checkAssign(cast<AssignStmt>(S));
  case Stmt::Kind::ExprStmt:
    return checkExprStmt(cast<ExprStmt>(S));
  case Stmt::Kind::If:
    return checkIf(cast<IfStmt>(S));
  case Stmt::Kind::For:
  case Stmt::Kind::While:
  case Stmt::Kind::Do:
    return checkLoop(S);
  case Stmt::Kind::Break:
  case Stmt::Kind::Continue:
    if (LoopDepth == 0)
      fail(std::string(S->getKind() == Stmt::Kind::Break ? "break"
                                                         : "continue") +
           " outside a loop");
    return;
  case Stmt::Kind::Return:
    return checkReturn(cast<ReturnStmt>(S));
  case Stmt::Kind::Launch:
    return checkLaunch(cast<LaunchStmt>(S));
  case Stmt::Kind::Comment:
    return;
  case Stmt::Kind::Marker:
    return checkMarker(cast<MarkerStmt>(S));
  }
}

void Verifier::checkMarker(const MarkerStmt *M) {
  std::string Name =
      std::string("marker ") + MarkerStmt::getRegionName(M->getRegion());
  if (Stage == VerifyStage::Lowered)
    fail("the " + Name + " is left after the GPU lowering");
  if (!AtTopLevel)
    fail("the " + Name + " is not a statement of the function's body");
  if (!Markers.empty() && Markers.back() >= M->getRegion())
    fail("the " + Name + " follows the marker " +
         MarkerStmt::getRegionName(Markers.back()) +
         " (one of each, in order)");
  Markers.push_back(M->getRegion());
}

void Verifier::checkDecl(const DeclStmt *D) {
  const Var *V = D->getVar();
  if (V && V->isGlobal()) {
    // Declared at namespace scope; the emitter prints nothing here.
    checkExpr(D->getInit());
    return;
  }
  if (V && V->isParam())
    fail("parameter '" + V->getName() + "' declared in the body");
  if (V && !V->getType())
    fail("'" + V->getName() + "' has no type");
  // C++ scoping: the name is visible in its own initializer.
  declare(V);
  checkExpr(D->getInit());
}

/// A seed reset stores a literal zero into an element of memory.
static bool isSeedResetForm(const AssignStmt *A) {
  const Expr *RHS = A->getRHS();
  if (A->getOp() != AssignOp::Assign || llvm::isa<VarRefExpr>(A->getLHS()) ||
      !RHS)
    return false;
  if (const auto *List = dyn_cast<InitListExpr>(RHS))
    return List->getElements().empty();
  if (const auto *F = dyn_cast<FloatLitExpr>(RHS))
    return F->getValue() == 0.0;
  if (const auto *I = dyn_cast<IntLitExpr>(RHS))
    return I->getValue() == 0;
  return false;
}

void Verifier::checkAssign(const AssignStmt *A) {
  const Expr *LHS = A->getLHS();
  AssignOp Op = A->getOp();
  if (!LHS) {
    fail("an assignment without a left-hand side");
    return;
  }
  checkExpr(LHS);
  if (!isLValue(LHS))
    fail("the left-hand side of an assignment is not an lvalue");
  else if (LHS->getType() && LHS->getType()->isConst())
    fail("assignment to const " + nameOf(LHS));
  if (const auto *R = dyn_cast<VarRefExpr>(LHS))
    if (R->getVar()->getType() && R->getVar()->getType()->isConst())
      fail("assignment to const " + nameOf(LHS));
  bool Unary = Op == AssignOp::Inc || Op == AssignOp::Dec;
  if (Unary != (A->getRHS() == nullptr))
    fail(Unary ? "++/-- with a right-hand side"
               : "an assignment without a right-hand side");
  if (Op == AssignOp::Accumulate && Stage == VerifyStage::Lowered)
    fail("an Accumulate of " + nameOf(LHS) + " is left after the GPU lowering");
  if (A->isSeedReset() && !isSeedResetForm(A))
    fail("a seed reset of " + nameOf(LHS) +
         " that does not store zero into memory");
  checkExpr(A->getRHS());
}

void Verifier::checkExprStmt(const ExprStmt *S) {
  if (!S->getExpr()) {
    fail("an expression statement without an expression");
    return;
  }
  checkExpr(S->getExpr());
}

void Verifier::checkBarrier(const CallExpr *C) {
  const IntrinsicInfo *I = lookupIntrinsic(C);
  if (I && I->isBlockBarrier() && DivergentDepth > 0)
    fail("'" + C->getName() +
         "' is inside a branch or loop whose condition depends on the "
         "thread index");
}

/// A branch or loop body under \p Cond.
void Verifier::checkBody(const BlockStmt *Body, const Expr *Cond) {
  bool Divergent = Threads.dependsOnThread(Cond);
  DivergentDepth += Divergent;
  checkBlock(Body);
  DivergentDepth -= Divergent;
}

void Verifier::checkIf(const IfStmt *I) {
  if (!I->getCond())
    fail("an if without a condition");
  checkExpr(I->getCond());
  checkBody(I->getThen(), I->getCond());
  if (I->getElse())
    checkBody(I->getElse(), I->getCond());
}

void Verifier::checkLoop(const Stmt *S) {
  ++LoopDepth;
  if (const auto *L = dyn_cast<ForStmt>(S)) {
    pushScope();
    if (const Stmt *Init = L->getInit()) {
      if (!llvm::isa<DeclStmt, AssignStmt>(Init))
        fail("a for initializer that is not a declaration or an assignment");
      checkStmt(Init);
    }
    checkExpr(L->getCond());
    if (const Stmt *Inc = L->getInc()) {
      if (!llvm::isa<AssignStmt>(Inc))
        fail("a for increment that is not an assignment");
      checkStmt(Inc);
    }
    checkBody(L->getBody(), L->getCond());
    popScope();
  } else if (const auto *W = dyn_cast<WhileStmt>(S)) {
    if (!W->getCond())
      fail("a while without a condition");
    checkExpr(W->getCond());
    checkBody(W->getBody(), W->getCond());
  } else {
    const auto *D = cast<DoStmt>(S);
    checkBody(D->getBody(), D->getCond());
    if (!D->getCond())
      fail("a do-while without a condition");
    checkExpr(D->getCond());
  }
  --LoopDepth;
}

void Verifier::checkReturn(const ReturnStmt *R) {
  const Type *RetTy = F.getReturnType();
  if (!RetTy) {
    fail("the function has no return type");
    return;
  }
  if (R->getValue() && RetTy->isVoid())
    fail("a value returned from a void function");
  else if (!R->getValue() && !RetTy->isVoid())
    fail("a return without a value from a non-void function");
  checkExpr(R->getValue());
}

void Verifier::checkLaunch(const LaunchStmt *L) {
  const Function *K = L->getKernel();
  if (!K) {
    fail("a launch without a kernel");
    return;
  }
  if (!K->isKernel())
    fail("a launch of '" + K->getName() + "', which is not a kernel");
  if (L->getArgs().size() != K->getNumParams())
    fail("a launch of '" + K->getName() + "' with " +
         std::to_string(L->getArgs().size()) + " arguments for " +
         std::to_string(K->getNumParams()) + " parameters");
  if (!L->getGrid() || !L->getBlock())
    fail("a launch of '" + K->getName() + "' without a grid or block");
  for (const Expr *E : ownExprs(L))
    checkExpr(E);
}

//===----------------------------------------------------------------------===//
// Expressions
//===----------------------------------------------------------------------===//

void Verifier::checkExpr(const Expr *E) {
  if (!E)
    return;
  if (!E->getType()) {
    fail("an expression without a type");
    return;
  }
  switch (E->getKind()) {
  case Expr::Kind::VarRef:
    checkUse(cast<VarRefExpr>(E)->getVar());
    return;
  case Expr::Kind::Unary:
    checkUnary(cast<UnaryExpr>(E));
    break;
  case Expr::Kind::Binary:
    checkBinary(cast<BinaryExpr>(E));
    break;
  case Expr::Kind::Call:
    checkCall(cast<CallExpr>(E));
    break;
  case Expr::Kind::Index: {
    const auto *I = cast<IndexExpr>(E);
    const Type *Base = I->getBase() ? I->getBase()->getType() : nullptr;
    const Type *Idx = I->getIndex() ? I->getIndex()->getType() : nullptr;
    if (Base && !Base->isIndexable())
      fail("an index into " + nameOf(I->getBase()) +
           ", which is neither a pointer nor an array");
    if (Idx && !isIntegerLike(Idx))
      fail("an index that is not an integer");
    break;
  }
  case Expr::Kind::Member: {
    const auto *M = cast<MemberExpr>(E);
    const Type *Base = M->getBase() ? M->getBase()->getType() : nullptr;
    if (Base && M->isArrow() && !Base->isPointer())
      fail("'->" + M->getField() + "' on a value that is not a pointer");
    if (Base && Base->isPair())
      checkPairMember(M, Base);
    break;
  }
  case Expr::Kind::InitList: {
    const auto *L = cast<InitListExpr>(E);
    if (E->getType()->isPair() && L->getElements().size() != 2 &&
        !L->getElements().empty())
      fail("a pair built from " + std::to_string(L->getElements().size()) +
           " values");
    break;
  }
  default:
    break;
  }
  checkOperands(E);
}

void Verifier::checkPairMember(const MemberExpr *M, const Type *Pair) {
  if (M->getField() != Type::getPairField(0) &&
      M->getField() != Type::getPairField(1))
    fail("member '" + M->getField() +
         "' of a pair (only 'value' and 'pushforward')");
  else if (M->getType()->getUnqualified() != Pair->getElement())
    fail("member '" + M->getField() + "' of a pair read with another type");
}

void Verifier::checkOperands(const Expr *E) {
  for (const Expr *Op : operands(E)) {
    if (!Op)
      fail("an expression with a missing operand");
    checkExpr(Op);
  }
}

void Verifier::checkUnary(const UnaryExpr *U) {
  const Expr *Sub = U->getSub();
  const Type *T = Sub ? Sub->getType() : nullptr;
  if (!T)
    return;
  switch (U->getOp()) {
  case UnaryOp::Deref:
    if (!T->isIndexable())
      fail("a dereference of " + nameOf(Sub) + ", which is not a pointer");
    return;
  case UnaryOp::AddrOf:
    if (!isLValue(Sub))
      fail("the address of a value that is not an lvalue");
    return;
  case UnaryOp::Neg:
  case UnaryOp::Plus:
    if (!isArithmeticType(T))
      fail("unary +/- of a value that is not arithmetic");
    return;
  case UnaryOp::BitNot:
    if (!isIntegerLike(T))
      fail("~ of a value that is not an integer");
    return;
  case UnaryOp::Not:
    if (T->isVoid())
      fail("! of a void value");
    return;
  }
}

void Verifier::checkBinary(const BinaryExpr *B) {
  if (!B->getLHS() || !B->getRHS())
    return;
  const Type *L = B->getLHS()->getType(), *R = B->getRHS()->getType();
  if (!L || !R)
    return;
  BinaryOp Op = B->getOp();
  std::string What = std::string("operands of '") + spellBinary(Op) + "'";
  if (L->isVoid() || R->isVoid()) {
    fail("void " + What);
    return;
  }
  if (isComparisonOrLogical(Op))
    return;
  if (isArithmetic(Op)) {
    // Pointer arithmetic: p + i, i + p, p - i, p - q.
    bool PtrArith =
        (Op == BinaryOp::Add || Op == BinaryOp::Sub) &&
        ((L->isIndexable() && isIntegerLike(R)) ||
         (Op == BinaryOp::Add && isIntegerLike(L) && R->isIndexable()) ||
         (Op == BinaryOp::Sub && L->isIndexable() && R->isIndexable()));
    if (!PtrArith && (!isArithmeticType(L) || !isArithmeticType(R)))
      fail(What + " that are not arithmetic");
    return;
  }
  // % & | ^ << >>
  if (!isIntegerLike(L) || !isIntegerLike(R))
    fail(What + " that are not integers");
}

/// A user functor passed to a Thrust primitive binds only the leading
/// arguments of its operator() (Rules/ThrustRecipes.h).
static bool isThrustUserFunctor(const CallExpr *C) {
  return C->getType()->getKind() == Type::Kind::Opaque &&
         C->getType()->getSpelling() == ThrustUserFunctorType;
}

void Verifier::checkCall(const CallExpr *C) {
  checkBarrier(C);
  switch (C->getCalleeKind()) {
  case CallExpr::CalleeKind::User: {
    const Function *Callee = C->getUserCallee();
    if (!Callee)
      fail("a call without a callee");
    else if (Callee->getNumParams() != C->getNumArgs() &&
             !(isThrustUserFunctor(C) &&
               C->getNumArgs() < Callee->getNumParams()))
      fail("a call of '" + Callee->getName() + "' with " +
           std::to_string(C->getNumArgs()) + " arguments for " +
           std::to_string(Callee->getNumParams()) + " parameters");
    return;
  }
  case CallExpr::CalleeKind::Math:
    if (C->getMathId() < 0)
      fail("a math call of '" + C->getName() + "' without a rule");
    return;
  case CallExpr::CalleeKind::Intrinsic:
    if (const IntrinsicInfo *I = lookupIntrinsic(C))
      if (!I->acceptsArgs(C->getNumArgs()))
        fail("a call of '" + C->getName() + "' with " +
             std::to_string(C->getNumArgs()) + " arguments (" +
             std::to_string(I->Arity) + " expected)");
    return;
  }
}

} // namespace

bool ir::verifyFunction(const Function &F, VerifyStage Stage,
                        std::vector<std::string> &Problems) {
  std::vector<std::string> New = Verifier(F, Stage).run();
  Problems.insert(Problems.end(), New.begin(), New.end());
  return New.empty();
}

bool ir::verifyFunction(const Function &F, VerifyStage Stage,
                        std::string &Errors) {
  std::vector<std::string> Problems;
  if (verifyFunction(F, Stage, Problems))
    return true;
  for (const std::string &P : Problems)
    Errors += (Errors.empty() ? "" : "; ") + P;
  return false;
}
