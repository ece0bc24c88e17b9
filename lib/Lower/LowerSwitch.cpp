//===- Lower/LowerSwitch.cpp - switch and range-based for -----------------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Two statements the IR has no node for, lowered into ones it has:
///
/// \code
///   switch (k) {            // if (k == 0 || k == 1) { r = x; }
///   case 0: case 1:         // else if (k == 2) { r = 2 * x; r += x; }
///     r = x; break;         // else { r += x; }
///   case 2: r = 2 * x;      // (an arm that falls through gets the
///   default: r += x;        //  statements of the next ones)
///   }
///   for (double &v : a)     // for (int _i0 = 0; _i0 < 3; ++_i0)
///     v *= x;               //   a[_i0] *= x;
/// \endcode
///
/// A `break` leaves a `switch` only as the last statement of an arm (or of a
/// block ending one); range-based loops run over arrays of known size.
///
//===----------------------------------------------------------------------===//

#include "Lower/LoweringImpl.h"

#include "clang/AST/ASTContext.h"
#include "llvm/ADT/DenseMap.h"

#include <functional>

using namespace meshad;
using namespace clang;

/// The labels of one arm of a switch and the statements up to the next one.
struct meshad::SwitchArm {
  std::vector<const CaseStmt *> Cases;
  bool IsDefault = false;
  std::vector<const Stmt *> Body;
};

namespace {

/// The last statement of \p St on its straight path (through blocks and
/// attributes such as [[fallthrough]]); null for an empty one.
const Stmt *lastStatement(const Stmt *St) {
  if (const auto *AS = dyn_cast<AttributedStmt>(St))
    return lastStatement(AS->getSubStmt());
  if (const auto *CS = dyn_cast<CompoundStmt>(St)) {
    for (auto It = CS->body_rbegin(); It != CS->body_rend(); ++It)
      if (const Stmt *Last = lastStatement(*It))
        return Last;
    return nullptr;
  }
  return isa<NullStmt>(St) ? nullptr : St;
}

/// The statement that ends an arm, when control cannot fall out of it.
const Stmt *endingJump(const std::vector<const Stmt *> &Body) {
  for (auto It = Body.rbegin(); It != Body.rend(); ++It)
    if (const Stmt *Last = lastStatement(*It))
      return isa<BreakStmt, ContinueStmt, ReturnStmt>(Last) ? Last : nullptr;
  return nullptr;
}

/// The first `break` in \p St that leaves the switch \p St belongs to
/// other than \p Allowed.
const Stmt *findSwitchBreak(const Stmt *St, const Stmt *Allowed) {
  if (!St || isa<ForStmt, WhileStmt, DoStmt, CXXForRangeStmt, SwitchStmt>(St))
    return nullptr;
  if (isa<BreakStmt>(St))
    return St == Allowed ? nullptr : St;
  for (const Stmt *Child : St->children())
    if (const Stmt *B = findSwitchBreak(Child, Allowed))
      return B;
  return nullptr;
}

/// Splits a switch body into its arms; false when it is not a block.
bool collectArms(const Stmt *Body, std::vector<SwitchArm> &Arms) {
  const auto *CS = dyn_cast<CompoundStmt>(Body);
  if (!CS)
    return false;
  for (const Stmt *St : CS->body()) {
    bool Labelled = false;
    while (const auto *SC = dyn_cast<SwitchCase>(St)) {
      if (!Labelled && (Arms.empty() || !Arms.back().Body.empty()))
        Arms.emplace_back();
      Labelled = true;
      if (const auto *Case = dyn_cast<CaseStmt>(SC))
        Arms.back().Cases.push_back(Case);
      else
        Arms.back().IsDefault = true;
      St = SC->getSubStmt();
    }
    // Statements before the first label never run.
    if (!Arms.empty())
      Arms.back().Body.push_back(St);
  }
  return true;
}

/// A variable declared at the top level of one arm and named in another:
/// each arm becomes a block of its own, where it would be out of scope.
const DeclRefExpr *findCrossArmUse(const std::vector<SwitchArm> &Arms) {
  llvm::DenseMap<const Decl *, size_t> DeclaredIn;
  for (size_t I = 0; I < Arms.size(); ++I)
    for (const Stmt *St : Arms[I].Body)
      if (const auto *DS = dyn_cast<DeclStmt>(St))
        for (const Decl *D : DS->decls())
          DeclaredIn[D] = I;
  std::function<const DeclRefExpr *(const Stmt *, size_t)> Find =
      [&](const Stmt *St, size_t Arm) -> const DeclRefExpr * {
    if (!St)
      return nullptr;
    if (const auto *Ref = dyn_cast<DeclRefExpr>(St)) {
      auto It = DeclaredIn.find(Ref->getDecl());
      if (It != DeclaredIn.end() && It->second != Arm)
        return Ref;
    }
    for (const Stmt *Child : St->children())
      if (const DeclRefExpr *Ref = Find(Child, Arm))
        return Ref;
    return nullptr;
  };
  for (size_t I = 0; I < Arms.size(); ++I)
    for (const Stmt *St : Arms[I].Body)
      if (const DeclRefExpr *Ref = Find(St, I))
        return Ref;
  return nullptr;
}

} // namespace

const ir::Stmt *StmtLowering::lowerSwitch(const SwitchStmt *SS) {
  return withInitializer(SS->getInit(), SS->getConditionVariable(),
                         SS->getBeginLoc(),
                         [&]() { return lowerSwitchBody(SS); });
}

const ir::Stmt *StmtLowering::lowerSwitchBody(const SwitchStmt *SS) {
  SourceLocation Loc = SS->getBeginLoc();
  std::vector<SwitchArm> Arms;
  if (!collectArms(SS->getBody(), Arms))
    return S.fail(Loc, "meshad: a 'switch' whose body is not a block is not "
                       "supported");
  if (const DeclRefExpr *Ref = findCrossArmUse(Arms))
    return S.fail(Ref->getLocation(),
                  "meshad: '" + Ref->getDecl()->getNameAsString() +
                      "' is declared in another case of this 'switch'; "
                      "declare it before the 'switch'");
  const ir::Expr *Value =
      lowerCondition(SS->getCond(), SS->getConditionVariable());
  if (!Value)
    return nullptr;
  // The value is compared once per arm: a variable, or a copy.
  if (!isa<ir::VarRefExpr, ir::IntLitExpr>(Value)) {
    ir::Var *Temp = S.M.createVar(Exprs.freshName("_t"),
                                  Value->getType()->getUnqualified());
    std::vector<const ir::Stmt *> H = Exprs.takeHoisted();
    H.push_back(S.make<ir::DeclStmt>(Loc, Temp, Value));
    Exprs.restoreHoisted(std::move(H));
    Value = S.make<ir::VarRefExpr>(Loc, Temp);
  }
  std::vector<const ir::Stmt *> Pre = Exprs.takeHoisted();
  // The default arm is the last else-branch, wherever it is written; the
  // chain is built from the last arm, each the else-branch of the one before.
  const ir::BlockStmt *Else = nullptr;
  for (size_t I = 0; I < Arms.size(); ++I)
    if (Arms[I].IsDefault && !(Else = lowerSwitchArm(Arms, I, Loc)))
      return nullptr;
  const ir::Stmt *Chain = nullptr;
  for (size_t I = Arms.size(); I-- > 0;) {
    if (Arms[I].IsDefault)
      continue;
    const ir::BlockStmt *Block = lowerSwitchArm(Arms, I, Loc);
    const ir::Expr *Test = switchTest(Arms[I], Value);
    if (!Block || !Test)
      return nullptr;
    Chain = S.make<ir::IfStmt>(Loc, Test, Block, Else);
    Else = S.make<ir::BlockStmt>(Loc, std::vector<const ir::Stmt *>{Chain});
  }
  Exprs.restoreHoisted(std::move(Pre));
  if (Chain)
    return Chain;
  return Else ? Else : S.make<ir::BlockStmt>(Loc);
}

const ir::BlockStmt *
StmtLowering::lowerSwitchArm(const std::vector<SwitchArm> &Arms, size_t I,
                             SourceLocation Loc) {
  // An arm that falls through runs the next arms' statements too.
  std::vector<const Stmt *> Body;
  const Stmt *Jump = nullptr;
  for (size_t J = I; J < Arms.size() && !Jump; ++J) {
    Body.insert(Body.end(), Arms[J].Body.begin(), Arms[J].Body.end());
    Jump = endingJump(Arms[J].Body);
  }
  auto *Block = S.make<ir::BlockStmt>(Loc);
  bool Ok = true;
  for (const Stmt *St : Body) {
    if (const Stmt *B = findSwitchBreak(St, Jump)) {
      S.fail(B->getBeginLoc(), "meshad: a 'break' that leaves a 'switch' "
                               "before the end of its case is not "
                               "supported; use if/else inside the case");
      return nullptr;
    }
    Ok &= lowerIntoSkipping(St, Block,
                            isa_and_nonnull<BreakStmt>(Jump) ? Jump : nullptr);
  }
  return Ok ? Block : nullptr;
}

const ir::Expr *StmtLowering::switchTest(const SwitchArm &Arm,
                                         const ir::Expr *Value) {
  const ir::Type *Bool = S.M.getTypes().getBool();
  const ir::Expr *Test = nullptr;
  for (const CaseStmt *Case : Arm.Cases) {
    SourceLocation Loc = Case->getBeginLoc();
    if (Case->getRHS())
      return S.fail(Loc, "meshad: case ranges ('case a ... b') are not "
                         "supported; list the values");
    const ir::Expr *Label = Exprs.lower(Case->getLHS());
    if (!Label)
      return nullptr;
    // A fresh reference per comparison: IR nodes are not shared.
    const ir::Expr *V = Value;
    if (const auto *Ref = dyn_cast<ir::VarRefExpr>(Value))
      V = S.make<ir::VarRefExpr>(Loc, Ref->getVar());
    const ir::Expr *Eq =
        S.make<ir::BinaryExpr>(Loc, Bool, ir::BinaryOp::Eq, V, Label);
    Test = Test ? S.make<ir::BinaryExpr>(Loc, Bool, ir::BinaryOp::LOr, Test,
                                         Eq)
                : Eq;
  }
  return Test;
}

bool StmtLowering::lowerIntoSkipping(const Stmt *St, ir::BlockStmt *B,
                                     const Stmt *Skipped) {
  const Stmt *Outer = std::exchange(SkippedBreak, Skipped);
  bool Ok = lowerInto(St, B);
  SkippedBreak = Outer;
  return Ok;
}

//===----------------------------------------------------------------------===//
// Range-based for
//===----------------------------------------------------------------------===//

bool StmtLowering::bindRangeVariable(const CXXForRangeStmt *FS,
                                     const ir::VarRefExpr *ArrayRef,
                                     ir::Var *Counter, ir::BlockStmt *Body) {
  SourceLocation Loc = FS->getBeginLoc();
  auto Count = [&]() -> const ir::Expr * {
    return S.make<ir::VarRefExpr>(Loc, Counter);
  };
  const VarDecl *LoopVar = FS->getLoopVariable();
  ir::Var *Array = ArrayRef->getVar();
  if (LoopVar->getType()->isReferenceType()) {
    // Every use of the reference names the element itself.
    S.Aliases[LoopVar] = S.make<ir::IndexExpr>(
        Loc, Array->getType()->getElement(), S.make<ir::VarRefExpr>(Loc, Array),
        Count());
    return true;
  }
  const ir::Type *Ty = this->Types.lowerDeclType(LoopVar);
  if (!Ty)
    return false;
  ir::Var *V = S.M.createVar(Exprs.localName(LoopVar), Ty);
  S.Vars[LoopVar] = V;
  const ir::Expr *Elem = S.make<ir::IndexExpr>(
      Loc, Array->getType()->getElement(), ArrayRef, Count());
  Body->append(S.make<ir::DeclStmt>(LoopVar->getLocation(), V,
                                    Exprs.convert(Elem, Ty, Loc)));
  return true;
}

const ir::Stmt *StmtLowering::lowerRangeFor(const CXXForRangeStmt *FS) {
  SourceLocation Loc = FS->getBeginLoc();
  if (FS->getInit())
    return S.fail(Loc, "meshad: a range-based for loop with an initializer "
                       "is not supported; declare the variable before the "
                       "loop");
  const Expr *Range = FS->getRangeInit()->IgnoreParenImpCasts();
  const auto *Ref = dyn_cast<DeclRefExpr>(Range);
  const auto *ArrayDecl = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
  const ConstantArrayType *AT =
      ArrayDecl ? S.Ctx.getAsConstantArrayType(ArrayDecl->getType()) : nullptr;
  if (!AT)
    return S.fail(Range->getExprLoc(),
                  "meshad: a range-based for loop is supported over an array "
                  "of known size ('T a[N]') only; write an indexed loop");
  const auto *ArrayRef = dyn_cast_or_null<ir::VarRefExpr>(Exprs.lower(Range));
  if (!ArrayRef)
    return nullptr;
  ir::TypeContext &Types = S.M.getTypes();
  const ir::Type *Int = Types.getInt("int");
  ir::Var *Counter = S.M.createVar(Exprs.freshName("_i"), Int);
  auto Count = [&]() -> const ir::Expr * {
    return S.make<ir::VarRefExpr>(Loc, Counter);
  };
  const ir::Stmt *Init =
      S.make<ir::DeclStmt>(Loc, Counter, S.make<ir::IntLitExpr>(Loc, Int, 0, ""));
  const ir::Expr *Cond = S.make<ir::BinaryExpr>(
      Loc, Types.getBool(), ir::BinaryOp::Lt, Count(),
      S.make<ir::IntLitExpr>(Loc, Int, AT->getSize().getZExtValue(), ""));
  const ir::Stmt *Inc =
      S.make<ir::AssignStmt>(Loc, Count(), ir::AssignOp::Inc, nullptr);
  auto *Body = S.make<ir::BlockStmt>(FS->getBody()->getBeginLoc());
  if (!bindRangeVariable(FS, ArrayRef, Counter, Body))
    return nullptr;
  bool Ok = true;
  if (const auto *CS = dyn_cast<CompoundStmt>(FS->getBody())) {
    for (const Stmt *St : CS->body())
      Ok &= lowerInto(St, Body);
  } else {
    Ok = lowerInto(FS->getBody(), Body);
  }
  if (!Ok)
    return nullptr;
  return S.make<ir::ForStmt>(Loc, Init, Cond, Inc, Body);
}
