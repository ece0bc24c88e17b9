//===- Rules/RuleLanguage.cpp - Parsing derivative rule expressions -------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//

#include "Rules/RuleLanguage.h"

#include <cctype>
#include <cstdlib>

using namespace meshad;

namespace {

using ExprPtr = std::unique_ptr<RuleExpr>;

/// A recursive-descent parser of one rule, with C precedence:
///   cond    := compare ('?' cond ':' cond)?
///   compare := sum (('<' | '<=' | '>' | '>=' | '==' | '!=') sum)?
///   sum     := product (('+' | '-') product)*
///   product := unary (('*' | '/') unary)*
///   unary   := '-' unary | primary
///   primary := number | 'x' | 'y' | 'z' | 'r' | name '(' cond (',' cond)* ')'
///            | '(' cond ')'
/// The first error is kept and makes every later step fail.
class RuleParser {
public:
  RuleParser(const std::string &Text, unsigned Arity, bool AllowResult)
      : Text(Text), Arity(Arity), AllowResult(AllowResult) {}

  llvm::Expected<ExprPtr> parse() {
    ExprPtr E = parseCond();
    skipSpace();
    if (E && Pos != Text.size())
      fail("unexpected '" + Text.substr(Pos, 1) + "'");
    if (!Error.empty())
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     "rule \"%s\": %s", Text.c_str(),
                                     Error.c_str());
    if (isBoolean(*E))
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     "rule \"%s\": value is a comparison",
                                     Text.c_str());
    return std::move(E);
  }

private:
  static bool isBoolean(const RuleExpr &E) {
    return E.K == RuleExpr::Kind::Compare;
  }

  ExprPtr fail(const std::string &Msg) {
    if (Error.empty())
      Error = Msg + " at offset " + std::to_string(Pos);
    return nullptr;
  }

  void skipSpace() {
    while (Pos < Text.size() &&
           std::isspace(static_cast<unsigned char>(Text[Pos])))
      ++Pos;
  }

  /// Consumes \p Tok if it comes next (and is not the prefix of a longer
  /// comparison operator such as "<=" when \p Tok is "<").
  bool consume(llvm::StringRef Tok) {
    skipSpace();
    if (!llvm::StringRef(Text).substr(Pos).starts_with(Tok))
      return false;
    if (Tok.size() == 1 && (Tok == "<" || Tok == ">") &&
        Pos + 1 < Text.size() && Text[Pos + 1] == '=')
      return false;
    Pos += Tok.size();
    return true;
  }

  /// Checks that \p E is a value (not a comparison) where one is needed.
  ExprPtr value(ExprPtr E) {
    if (E && isBoolean(*E))
      return fail("comparison used as a value");
    return E;
  }

  static ExprPtr node(RuleExpr::Kind K, ir::BinaryOp Op,
                      std::vector<ExprPtr> Ops) {
    auto E = std::make_unique<RuleExpr>(K);
    E->Op = Op;
    E->Ops = std::move(Ops);
    return E;
  }

  static std::vector<ExprPtr> ops(ExprPtr A, ExprPtr B) {
    std::vector<ExprPtr> V;
    V.push_back(std::move(A));
    V.push_back(std::move(B));
    return V;
  }

  ExprPtr parseCond() {
    ExprPtr C = parseCompare();
    if (!C || !consume("?"))
      return C;
    if (!isBoolean(*C))
      return fail("condition of ?: is not a comparison");
    ExprPtr T = value(parseCond());
    if (!T || !consume(":"))
      return T ? fail("expected ':'") : nullptr;
    ExprPtr F = value(parseCond());
    if (!F)
      return nullptr;
    std::vector<ExprPtr> Ops = ops(std::move(C), std::move(T));
    Ops.push_back(std::move(F));
    return node(RuleExpr::Kind::Conditional, ir::BinaryOp::Add, std::move(Ops));
  }

  ExprPtr parseCompare() {
    static const std::pair<const char *, ir::BinaryOp> Comparisons[] = {
        {"<=", ir::BinaryOp::Le}, {">=", ir::BinaryOp::Ge},
        {"==", ir::BinaryOp::Eq}, {"!=", ir::BinaryOp::Ne},
        {"<", ir::BinaryOp::Lt},  {">", ir::BinaryOp::Gt}};
    ExprPtr L = parseSum();
    if (!L)
      return nullptr;
    for (const auto &[Tok, Op] : Comparisons) {
      if (!consume(Tok))
        continue;
      ExprPtr R = value(parseSum());
      if (!R)
        return nullptr;
      return node(RuleExpr::Kind::Compare, Op, ops(std::move(L), std::move(R)));
    }
    return L;
  }

  ExprPtr parseSum() {
    ExprPtr L = value(parseProduct());
    while (L) {
      ir::BinaryOp Op;
      if (consume("+"))
        Op = ir::BinaryOp::Add;
      else if (consume("-"))
        Op = ir::BinaryOp::Sub;
      else
        break;
      ExprPtr R = value(parseProduct());
      if (!R)
        return nullptr;
      L = node(RuleExpr::Kind::Arith, Op, ops(std::move(L), std::move(R)));
    }
    return L;
  }

  ExprPtr parseProduct() {
    ExprPtr L = value(parseUnary());
    while (L) {
      ir::BinaryOp Op;
      if (consume("*"))
        Op = ir::BinaryOp::Mul;
      else if (consume("/"))
        Op = ir::BinaryOp::Div;
      else
        break;
      ExprPtr R = value(parseUnary());
      if (!R)
        return nullptr;
      L = node(RuleExpr::Kind::Arith, Op, ops(std::move(L), std::move(R)));
    }
    return L;
  }

  ExprPtr parseUnary() {
    if (!consume("-"))
      return parsePrimary();
    ExprPtr Sub = value(parseUnary());
    if (!Sub)
      return nullptr;
    std::vector<ExprPtr> Ops;
    Ops.push_back(std::move(Sub));
    return node(RuleExpr::Kind::Neg, ir::BinaryOp::Sub, std::move(Ops));
  }

  ExprPtr parsePrimary() {
    skipSpace();
    if (Pos == Text.size())
      return fail("unexpected end");
    if (consume("(")) {
      ExprPtr E = parseCond();
      if (E && !consume(")"))
        return fail("expected ')'");
      return E;
    }
    char C = Text[Pos];
    if (std::isdigit(static_cast<unsigned char>(C)) || C == '.')
      return parseNumber();
    if (std::isalpha(static_cast<unsigned char>(C)) || C == '_')
      return parseNameOrCall();
    return fail(std::string("unexpected '") + C + "'");
  }

  ExprPtr parseNumber() {
    const char *Begin = Text.c_str() + Pos;
    char *End = nullptr;
    double V = std::strtod(Begin, &End);
    if (End == Begin)
      return fail("malformed number");
    Pos += End - Begin;
    auto E = std::make_unique<RuleExpr>(RuleExpr::Kind::Number);
    E->Value = V;
    return E;
  }

  ExprPtr parseNameOrCall() {
    size_t Begin = Pos;
    // Names may be qualified: meshad::polygamma.
    while (Pos < Text.size() &&
           (std::isalnum(static_cast<unsigned char>(Text[Pos])) ||
            Text[Pos] == '_' || Text.compare(Pos, 2, "::") == 0))
      Pos += Text.compare(Pos, 2, "::") == 0 ? 2 : 1;
    std::string Name = Text.substr(Begin, Pos - Begin);
    if (consume("("))
      return parseCallArgs(std::move(Name));
    if (Name == "r") {
      if (!AllowResult)
        return fail("the result 'r' is not available to this rule");
      return std::make_unique<RuleExpr>(RuleExpr::Kind::Result);
    }
    if (Name.size() != 1 || Name[0] < 'x' || Name[0] > 'z')
      return fail("unknown name '" + Name + "'");
    unsigned ArgNo = Name[0] - 'x';
    if (ArgNo >= Arity)
      return fail("argument '" + Name + "' of a function of arity " +
                  std::to_string(Arity));
    auto E = std::make_unique<RuleExpr>(RuleExpr::Kind::Arg);
    E->ArgNo = ArgNo;
    return E;
  }

  ExprPtr parseCallArgs(std::string Name) {
    auto E = std::make_unique<RuleExpr>(RuleExpr::Kind::Call);
    E->Callee = std::move(Name);
    do {
      ExprPtr A = value(parseCond());
      if (!A)
        return nullptr;
      E->Ops.push_back(std::move(A));
    } while (consume(","));
    if (!consume(")"))
      return fail("expected ')' after the arguments of '" + E->Callee + "'");
    return E;
  }

  const std::string &Text;
  unsigned Arity;
  bool AllowResult;
  size_t Pos = 0;
  std::string Error;
};

} // namespace

llvm::Expected<std::unique_ptr<RuleExpr>>
meshad::parseRule(const std::string &Text, unsigned Arity, bool AllowResult) {
  return RuleParser(Text, Arity, AllowResult).parse();
}

RuleReads meshad::countReads(const RuleExpr &E) {
  RuleReads R;
  if (E.K == RuleExpr::Kind::Arg)
    ++R.Args[E.ArgNo];
  else if (E.K == RuleExpr::Kind::Result)
    ++R.Result;
  for (const std::unique_ptr<RuleExpr> &Op : E.Ops)
    R += countReads(*Op);
  return R;
}
