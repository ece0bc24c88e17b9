//===- Emit/ExprEmitter.cpp - IR expressions to CUDA C++ text -------------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Expressions are printed with the fewest parentheses C's precedence and
/// associativity allow, plus a few that keep the text unambiguous to readers
/// and warning-free under clang (-Wparentheses): "a - (-b)", "-(-x)",
/// "(a & b) | c", "(a && b) || c".
///
//===----------------------------------------------------------------------===//

#include "Emit/CudaEmitter.h"

#include "llvm/ADT/StringSet.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

using namespace meshad;
using namespace meshad::ir;

namespace {

/// C operator precedence, higher binds tighter.
enum Precedence : int {
  PrecConditional = 3,
  PrecLOr,
  PrecLAnd,
  PrecBitOr,
  PrecBitXor,
  PrecBitAnd,
  PrecEquality,
  PrecRelational,
  PrecShift,
  PrecAdditive,
  PrecMultiplicative,
  PrecUnary = 15,
  PrecPostfix,
  PrecPrimary,
};

int precedenceOf(BinaryOp Op) {
  switch (Op) {
  case BinaryOp::Mul:
  case BinaryOp::Div:
  case BinaryOp::Rem:
    return PrecMultiplicative;
  case BinaryOp::Add:
  case BinaryOp::Sub:
    return PrecAdditive;
  case BinaryOp::Shl:
  case BinaryOp::Shr:
    return PrecShift;
  case BinaryOp::Lt:
  case BinaryOp::Gt:
  case BinaryOp::Le:
  case BinaryOp::Ge:
    return PrecRelational;
  case BinaryOp::Eq:
  case BinaryOp::Ne:
    return PrecEquality;
  case BinaryOp::BitAnd:
    return PrecBitAnd;
  case BinaryOp::BitXor:
    return PrecBitXor;
  case BinaryOp::BitOr:
    return PrecBitOr;
  case BinaryOp::LAnd:
    return PrecLAnd;
  case BinaryOp::LOr:
    return PrecLOr;
  }
  return PrecPrimary;
}

int precedenceOf(const Expr *E) {
  switch (E->getKind()) {
  case Expr::Kind::Call:
  case Expr::Kind::Index:
  case Expr::Kind::Member:
    return PrecPostfix;
  case Expr::Kind::Unary:
  case Expr::Kind::Cast:
    return PrecUnary;
  case Expr::Kind::Binary:
    return precedenceOf(llvm::cast<BinaryExpr>(E)->getOp());
  case Expr::Kind::Conditional:
    return PrecConditional;
  default:
    // Literals (negative ones print parenthesized), names, builtins, {...}.
    return PrecPrimary;
  }
}

const char *spellOp(BinaryOp Op) {
  switch (Op) {
  case BinaryOp::Add:
    return "+";
  case BinaryOp::Sub:
    return "-";
  case BinaryOp::Mul:
    return "*";
  case BinaryOp::Div:
    return "/";
  case BinaryOp::Rem:
    return "%";
  case BinaryOp::Lt:
    return "<";
  case BinaryOp::Gt:
    return ">";
  case BinaryOp::Le:
    return "<=";
  case BinaryOp::Ge:
    return ">=";
  case BinaryOp::Eq:
    return "==";
  case BinaryOp::Ne:
    return "!=";
  case BinaryOp::LAnd:
    return "&&";
  case BinaryOp::LOr:
    return "||";
  case BinaryOp::BitAnd:
    return "&";
  case BinaryOp::BitOr:
    return "|";
  case BinaryOp::BitXor:
    return "^";
  case BinaryOp::Shl:
    return "<<";
  case BinaryOp::Shr:
    return ">>";
  }
  return "?";
}

const char *spellOp(UnaryOp Op) {
  switch (Op) {
  case UnaryOp::Neg:
    return "-";
  case UnaryOp::Plus:
    return "+";
  case UnaryOp::Not:
    return "!";
  case UnaryOp::BitNot:
    return "~";
  case UnaryOp::AddrOf:
    return "&";
  case UnaryOp::Deref:
    return "*";
  }
  return "?";
}

/// True for a unary + or - (whose operand or left neighbour must not be
/// another sign, to avoid "--x" and "a - -b").
bool isSign(const Expr *E) {
  const auto *U = llvm::dyn_cast<UnaryExpr>(E);
  return U && (U->getOp() == UnaryOp::Neg || U->getOp() == UnaryOp::Plus);
}

/// True where clang's -Wparentheses wants parentheses that precedence alone
/// does not need: mixed bitwise/shift operators and && inside ||.
bool wantsClarifyingParens(BinaryOp Parent, const Expr *Child) {
  const auto *B = llvm::dyn_cast<BinaryExpr>(Child);
  if (!B)
    return false;
  switch (Parent) {
  case BinaryOp::BitAnd:
  case BinaryOp::BitOr:
  case BinaryOp::BitXor:
  case BinaryOp::Shl:
  case BinaryOp::Shr:
    return precedenceOf(B->getOp()) != precedenceOf(Parent);
  case BinaryOp::LOr:
    return B->getOp() == BinaryOp::LAnd;
  default:
    return false;
  }
}

std::string parenthesize(const std::string &S) { return "(" + S + ")"; }

/// Adds the parentheses a literal with a leading minus sign needs to be a
/// primary expression.
std::string wrapNegative(const std::string &S) {
  return !S.empty() && S[0] == '-' ? parenthesize(S) : S;
}

/// The shortest decimal spelling of |V| that reads back as V (as a float
/// when \p IsFloat), always with a '.' or an exponent.
std::string spellMagnitude(double V, bool IsFloat) {
  V = std::fabs(V);
  char Buf[64];
  for (int Precision = 1; Precision <= 17; ++Precision) {
    std::snprintf(Buf, sizeof(Buf), "%.*g", Precision, V);
    bool RoundTrips = IsFloat
                          ? std::strtof(Buf, nullptr) == static_cast<float>(V)
                          : std::strtod(Buf, nullptr) == V;
    if (RoundTrips)
      break;
  }
  std::string S = Buf;
  if (S.find_first_of(".e") == std::string::npos)
    S += ".";
  return S;
}

std::string spellFloatValue(double V, bool IsFloat) {
  std::string Body;
  if (std::isnan(V))
    return IsFloat ? "__builtin_nanf(\"\")" : "__builtin_nan(\"\")";
  if (std::isinf(V))
    Body = IsFloat ? "__builtin_inff()" : "__builtin_inf()";
  else
    Body = spellMagnitude(V, IsFloat) + (IsFloat ? "f" : "");
  return std::signbit(V) ? "(-" + Body + ")" : Body;
}

const char *spellBuiltin(BuiltinExpr::Builtin B) {
  switch (B) {
  case BuiltinExpr::Builtin::ThreadIdx:
    return "threadIdx";
  case BuiltinExpr::Builtin::BlockIdx:
    return "blockIdx";
  case BuiltinExpr::Builtin::BlockDim:
    return "blockDim";
  case BuiltinExpr::Builtin::GridDim:
    return "gridDim";
  case BuiltinExpr::Builtin::WarpSize:
    return "warpSize";
  }
  return "?";
}

/// Prints one expression tree.
class ExprPrinter {
public:
  explicit ExprPrinter(const EmitContext *Ctx) : Ctx(Ctx) {}
  std::string print(const Expr *E);

private:
  /// \p E, parenthesized when \p Paren.
  std::string operand(const Expr *E, bool Paren) {
    std::string S = print(E);
    return Paren ? parenthesize(S) : S;
  }
  std::string printList(const std::vector<const Expr *> &Elems);
  std::string printFloat(const FloatLitExpr *E);
  std::string printInt(const IntLitExpr *E);
  std::string printBuiltin(const BuiltinExpr *E);
  std::string printUnary(const UnaryExpr *E);
  std::string printBinary(const BinaryExpr *E);
  std::string printConditional(const ConditionalExpr *E);
  std::string printCall(const CallExpr *E);
  std::string printBoundCall(const CallExpr *E);
  std::string printIndex(const IndexExpr *E);
  std::string printMember(const MemberExpr *E);
  std::string printCast(const CastExpr *E);
  std::string printArgs(const Function &F, const CallExpr *E, unsigned First);

  /// The function's parameter taken by reference (`double &acc`) that \p E
  /// names: the IR's pointer `acc`, spelled `&acc`.
  const Var *refParam(const Expr *E) const {
    const auto *R = llvm::dyn_cast<VarRefExpr>(E);
    return R && Ctx && Ctx->RefParams.count(R->getVar()) ? R->getVar()
                                                          : nullptr;
  }
  /// The reference parameter whose object \p E is (`acc[0]`, `*acc`),
  /// spelled `acc`.
  const Var *refObject(const Expr *E) const {
    if (const auto *I = llvm::dyn_cast<IndexExpr>(E)) {
      const auto *Zero = llvm::dyn_cast<IntLitExpr>(I->getIndex());
      return Zero && Zero->getValue() == 0 ? refParam(I->getBase()) : nullptr;
    }
    const auto *U = llvm::dyn_cast<UnaryExpr>(E);
    return U && U->getOp() == UnaryOp::Deref ? refParam(U->getSub()) : nullptr;
  }
  /// The precedence of \p E as printed.
  int prec(const Expr *E) const {
    if (refObject(E))
      return PrecPrimary;
    return refParam(E) ? PrecUnary : precedenceOf(E);
  }

  const EmitContext *Ctx;
};

std::string ExprPrinter::print(const Expr *E) {
  if (const Var *V = refObject(E))
    return V->getName();
  if (const Var *V = refParam(E))
    return "&" + V->getName();
  switch (E->getKind()) {
  case Expr::Kind::FloatLit:
    return printFloat(llvm::cast<FloatLitExpr>(E));
  case Expr::Kind::IntLit:
    return printInt(llvm::cast<IntLitExpr>(E));
  case Expr::Kind::BoolLit:
    return llvm::cast<BoolLitExpr>(E)->getValue() ? "true" : "false";
  case Expr::Kind::VarRef:
    return llvm::cast<VarRefExpr>(E)->getVar()->getName();
  case Expr::Kind::Builtin:
    return printBuiltin(llvm::cast<BuiltinExpr>(E));
  case Expr::Kind::Unary:
    return printUnary(llvm::cast<UnaryExpr>(E));
  case Expr::Kind::Binary:
    return printBinary(llvm::cast<BinaryExpr>(E));
  case Expr::Kind::Conditional:
    return printConditional(llvm::cast<ConditionalExpr>(E));
  case Expr::Kind::Call:
    return printCall(llvm::cast<CallExpr>(E));
  case Expr::Kind::Index:
    return printIndex(llvm::cast<IndexExpr>(E));
  case Expr::Kind::Member:
    return printMember(llvm::cast<MemberExpr>(E));
  case Expr::Kind::Cast:
    return printCast(llvm::cast<CastExpr>(E));
  case Expr::Kind::InitList:
    return "{" + printList(llvm::cast<InitListExpr>(E)->getElements()) + "}";
  }
  return "";
}

std::string ExprPrinter::printList(const std::vector<const Expr *> &Elems) {
  std::string S;
  for (const Expr *Elem : Elems) {
    if (!S.empty())
      S += ", ";
    S += print(Elem);
  }
  return S;
}

std::string ExprPrinter::printFloat(const FloatLitExpr *E) {
  if (!E->getSpelling().empty())
    return wrapNegative(E->getSpelling());
  bool IsFloat = E->getType()->getKind() == Type::Kind::Float;
  return spellFloatValue(E->getValue(), IsFloat);
}

std::string ExprPrinter::printInt(const IntLitExpr *E) {
  if (!E->getSpelling().empty())
    return wrapNegative(E->getSpelling());
  return wrapNegative(std::to_string(E->getValue()));
}

std::string ExprPrinter::printBuiltin(const BuiltinExpr *E) {
  std::string S = spellBuiltin(E->getBuiltin());
  if (E->getBuiltin() == BuiltinExpr::Builtin::WarpSize)
    return S;
  static const char *const Dims[] = {".x", ".y", ".z"};
  return S + Dims[E->getDim() < 3 ? E->getDim() : 0];
}

std::string ExprPrinter::printUnary(const UnaryExpr *E) {
  const Expr *Sub = E->getSub();
  bool Paren = prec(Sub) < PrecUnary || (isSign(E) && isSign(Sub));
  return spellOp(E->getOp()) + operand(Sub, Paren);
}

std::string ExprPrinter::printBinary(const BinaryExpr *E) {
  BinaryOp Op = E->getOp();
  int Prec = precedenceOf(Op);
  bool Additive = Prec == PrecAdditive;
  const Expr *LHS = E->getLHS(), *RHS = E->getRHS();
  // Left associative: an equal-precedence right operand keeps its
  // parentheses, which also preserves floating-point evaluation order.
  bool ParenL = prec(LHS) < Prec || wantsClarifyingParens(Op, LHS);
  bool ParenR = prec(RHS) <= Prec || wantsClarifyingParens(Op, RHS) ||
                (Additive && isSign(RHS));
  return operand(LHS, ParenL) + " " + spellOp(Op) + " " + operand(RHS, ParenR);
}

std::string ExprPrinter::printConditional(const ConditionalExpr *E) {
  // Right associative: only the false branch may chain without parentheses.
  return operand(E->getCond(), prec(E->getCond()) <= PrecConditional) +
         " ? " +
         operand(E->getTrue(), prec(E->getTrue()) <= PrecConditional) +
         " : " +
         operand(E->getFalse(), prec(E->getFalse()) < PrecConditional);
}

std::string ExprPrinter::printCall(const CallExpr *E) {
  if (E->getCalleeKind() != CallExpr::CalleeKind::User)
    return E->getName() + "(" + printList(E->getArgs()) + ")";
  const Function &F = *E->getUserCallee();
  if (E->getNumArgs() < F.getNumParams())
    return printBoundCall(E);
  // A functor's operator() is called on the object: `f(x)`.
  if (F.getDerivativeOrder() == 0 && F.getSourceDecl() &&
      F.getCallOperatorKind() == Function::CallOperatorKind::Functor)
    return operand(E->getArg(0), prec(E->getArg(0)) < PrecPostfix) + "(" +
           printArgs(F, E, 1) + ")";
  return CudaEmitter::spellCallee(F, Ctx) + "(" + printArgs(F, E, 0) + ")";
}

/// The arguments of \p E from \p First on. A parameter that \p F takes by
/// reference gets the object the IR's pointer points to (`&acc` is spelled
/// `acc`).
std::string ExprPrinter::printArgs(const Function &F, const CallExpr *E,
                                   unsigned First) {
  std::string Text;
  for (unsigned I = First, N = E->getNumArgs(); I != N; ++I) {
    const Expr *Arg = E->getArg(I);
    if (I != First)
      Text += ", ";
    const auto *U = llvm::dyn_cast<UnaryExpr>(Arg);
    if (I >= F.getNumParams() || !CudaEmitter::takesByReference(*F.getParam(I)))
      Text += print(Arg);
    else if (U && U->getOp() == UnaryOp::AddrOf)
      Text += print(U->getSub());
    else if (const Var *V = refParam(Arg))
      Text += V->getName();
    else
      Text += "*" + operand(Arg, prec(Arg) < PrecUnary);
  }
  return Text;
}

/// A user functor passed to a Thrust primitive, a call that binds the
/// leading arguments (Rules/ThrustRecipes.h): the user's functor object
/// itself, else a lambda over the other parameters,
/// `[=] MESHAD_THRUST_LAMBDA (double t) { return f_lambda(a, t); }`.
std::string ExprPrinter::printBoundCall(const CallExpr *E) {
  const Function &F = *E->getUserCallee();
  if (F.getDerivativeOrder() == 0 &&
      F.getCallOperatorKind() == Function::CallOperatorKind::Functor)
    return print(E->getArg(0));
  std::string Params, Args = printList(E->getArgs());
  // The lambda's parameters must not hide what the bound arguments name.
  llvm::StringSet<> Bound;
  for (const Expr *A : E->getArgs())
    if (const auto *Ref = llvm::dyn_cast<VarRefExpr>(A))
      Bound.insert(Ref->getVar()->getName());
  for (unsigned I = E->getNumArgs(); I < F.getNumParams(); ++I) {
    const Var *P = F.getParam(I);
    std::string Name = P->getName();
    while (Bound.contains(Name))
      Name += "_";
    Params += (Params.empty() ? "" : ", ") +
              spellDeclaration(P->getType(), Name);
    Args += (Args.empty() ? "" : ", ") + Name;
  }
  std::string Call = CudaEmitter::spellCallee(F, Ctx) + "(" + Args + ")";
  return "[=] MESHAD_THRUST_LAMBDA (" + Params + ") { " +
         (F.getReturnType()->isVoid() ? "" : "return ") + Call + "; }";
}

std::string ExprPrinter::printIndex(const IndexExpr *E) {
  const Expr *Base = E->getBase();
  return operand(Base, prec(Base) < PrecPostfix) + "[" +
         print(E->getIndex()) + "]";
}

std::string ExprPrinter::printMember(const MemberExpr *E) {
  const Expr *Base = E->getBase();
  if (const Var *V = E->isArrow() ? refParam(Base) : nullptr)
    return V->getName() + "." + E->getField();
  return operand(Base, prec(Base) < PrecPostfix) +
         (E->isArrow() ? "->" : ".") + E->getField();
}

std::string ExprPrinter::printCast(const CastExpr *E) {
  const Expr *Sub = E->getSub();
  return "(" + spellType(E->getType()) + ")" +
         operand(Sub, prec(Sub) < PrecPostfix);
}

} // namespace

std::string CudaEmitter::emitExpr(const Expr *E, const EmitContext *Ctx) {
  return ExprPrinter(Ctx).print(E);
}
