//===- Rules/DerivativeRules.cpp - The math derivative rule table ---------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//

#include "Rules/DerivativeRules.h"
#include "Rules/RuleLanguage.h"

#include "llvm/Support/ErrorHandling.h"

using namespace meshad;

bool MathRule::isNonDifferentiable() const {
  for (const std::string &P : Partials)
    if (!P.empty())
      return false;
  return true;
}

std::string MathRule::displayName() const {
  if (isOperator())
    return "operator" + Spelling;
  return DoubleName.empty() ? FloatName : DoubleName;
}

/// One partial: its main form (which may read r), the form without the
/// result where the rule gives one, and what each reads.
struct RuleTable::ParsedPartial {
  std::unique_ptr<RuleExpr> Main, Fallback;
  RuleReads MainReads, FallbackReads;
};

const RuleTable &RuleTable::get() {
  static const RuleTable Table;
  return Table;
}

RuleTable::RuleTable() {
#define MESHAD_MATH_RULE(DoubleName, FloatName, Arity, DX, DY, DZ)             \
  addRule(MathRule{DoubleName, FloatName, Arity, {DX, DY, DZ}});
#define MESHAD_NONDIFF_RULE(DoubleName, FloatName, Arity)                      \
  addRule(MathRule{DoubleName, FloatName, Arity, {}});
#define MESHAD_GENERIC_ALIAS(Generic, DoubleName) addAlias(Generic, DoubleName);
#include "Rules/DerivativeRules.def"
#define MESHAD_UNARY_RULE(Op, Spelling, DX)                                    \
  addOperator(MathRule::Form::Unary, int(ir::UnaryOp::Op), Spelling, {DX});
#define MESHAD_BINARY_RULE(Op, Spelling, DX, DY)                               \
  addOperator(MathRule::Form::Binary, int(ir::BinaryOp::Op), Spelling,         \
              {DX, DY});
#define MESHAD_ASSIGN_RULE(Op, Spelling, DX, DY)                               \
  addOperator(MathRule::Form::Assign, int(ir::AssignOp::Op), Spelling,         \
              {DX, DY});
#include "Rules/OperatorRules.def"
  parseRules();
}

RuleTable::~RuleTable() = default;

/// Reports a bug of DerivativeRules.def (or of a caller of the table): these
/// are developer errors, never user input, so they stop the compiler loudly.
[[noreturn]] static void fatal(const llvm::Twine &Msg) {
  llvm::reportFatalInternalError("meshad: " + Msg);
}

[[noreturn]] static void badRule(const MathRule &R, const llvm::Twine &Msg) {
  fatal(llvm::Twine(R.isOperator() ? "OperatorRules.def: "
                                   : "DerivativeRules.def: ") +
        R.displayName() + ": " + Msg);
}

void RuleTable::addRule(MathRule R) {
  if (R.Arity < 1 || R.Arity > 3)
    badRule(R, "arity must be 1, 2 or 3");
  if (!R.Partials.empty()) {
    // One partial per argument; the unused trailing ones must be empty.
    for (unsigned I = 0; I < R.Partials.size(); ++I)
      if (R.Partials[I].empty() != (I >= R.Arity))
        badRule(R, "needs exactly one partial per argument");
    R.Partials.resize(R.Arity);
  }
  int Id = Rules.size();
  for (const std::string *Name : {&R.DoubleName, &R.FloatName})
    if (!Name->empty() && !Names.try_emplace(*Name, Id).second)
      badRule(R, "'" + *Name + "' is listed twice");
  if (R.DoubleName.empty() && R.FloatName.empty() && !R.isOperator())
    badRule(R, "has no name");
  Rules.push_back(std::move(R));
}

void RuleTable::addOperator(MathRule::Form F, int OpCode, const char *Spelling,
                            std::vector<std::string> Partials) {
  MathRule R;
  R.Arity = Partials.size();
  R.Partials = std::move(Partials);
  R.F = F;
  R.OpCode = OpCode;
  R.Spelling = Spelling;
  if (!Operators.try_emplace({F, OpCode}, Rules.size()).second)
    badRule(R, "is listed twice");
  addRule(std::move(R));
}

int RuleTable::lookupOperator(ir::UnaryOp Op) const {
  auto It = Operators.find({MathRule::Form::Unary, int(Op)});
  return It == Operators.end() ? -1 : It->second;
}

int RuleTable::lookupOperator(ir::BinaryOp Op) const {
  auto It = Operators.find({MathRule::Form::Binary, int(Op)});
  return It == Operators.end() ? -1 : It->second;
}

int RuleTable::lookupOperator(ir::AssignOp Op) const {
  auto It = Operators.find({MathRule::Form::Assign, int(Op)});
  return It == Operators.end() ? -1 : It->second;
}

void RuleTable::addAlias(const std::string &Generic,
                         const std::string &DoubleName) {
  auto It = Names.find(DoubleName);
  if (It == Names.end())
    fatal("DerivativeRules.def: alias '" + Generic + "' of unknown function '" +
          DoubleName + "'");
  Generics[Generic] = It->second;
}

void RuleTable::parseRules() {
  Parsed.resize(Rules.size());
  for (unsigned Id = 0; Id < Rules.size(); ++Id) {
    const MathRule &R = Rules[Id];
    if (R.isNonDifferentiable())
      continue;
    for (const std::string &Text : R.Partials)
      Parsed[Id].push_back(parsePartial(R, Text));
  }
}

RuleTable::ParsedPartial RuleTable::parsePartial(const MathRule &R,
                                                 const std::string &Text) {
  // "A | B": A may read the result, B is the form without it.
  size_t Bar = Text.find('|');
  std::string MainText = Text.substr(0, Bar);
  bool ResultAvailable = R.F != MathRule::Form::Assign;
  auto Parse = [&](const std::string &T, bool AllowResult) {
    llvm::Expected<std::unique_ptr<RuleExpr>> E =
        parseRule(T, R.Arity, AllowResult);
    if (!E)
      badRule(R, llvm::toString(E.takeError()));
    resolveCalls(R, **E);
    return std::move(*E);
  };
  ParsedPartial P;
  P.Main = Parse(MainText, ResultAvailable);
  P.MainReads = countReads(*P.Main);
  if (Bar != std::string::npos) {
    P.Fallback = Parse(Text.substr(Bar + 1), /*AllowResult=*/false);
    P.FallbackReads = countReads(*P.Fallback);
    if (P.MainReads.Result == 0)
      badRule(R, "a second form \"" + Text.substr(Bar + 1) +
                     "\" for a partial that does not read the result");
  }
  return P;
}

void RuleTable::resolveCalls(const MathRule &Owner, RuleExpr &E) const {
  for (std::unique_ptr<RuleExpr> &Op : E.Ops)
    resolveCalls(Owner, *Op);
  if (E.K != RuleExpr::Kind::Call)
    return;
  E.CalleeId = lookup(E.Callee);
  if (E.CalleeId < 0)
    badRule(Owner, "call of unknown function '" + E.Callee + "'");
  if (Rules[E.CalleeId].Arity != E.Ops.size())
    badRule(Owner, "call of '" + E.Callee + "' with " +
                       llvm::Twine(E.Ops.size()) + " arguments");
}

int RuleTable::lookup(const std::string &Name, bool FloatingArgs) const {
  llvm::StringRef N(Name);
  N.consume_front("::");
  N.consume_front("std::");
  auto It = Names.find(N);
  if (It != Names.end())
    return It->second;
  if (FloatingArgs) {
    auto G = Generics.find(N);
    if (G != Generics.end())
      return G->second;
  }
  return -1;
}

const std::string &RuleTable::getSpelling(int Id, const ir::Type *Ty) const {
  const MathRule &R = Rules[Id];
  bool WantFloat = Ty->getKind() == ir::Type::Kind::Float;
  const std::string &Wanted = WantFloat ? R.FloatName : R.DoubleName;
  if (!Wanted.empty())
    return Wanted;
  return WantFloat ? R.DoubleName : R.FloatName;
}

const ir::Expr *RuleTable::buildCall(ir::Module &M, int Id,
                                     std::vector<const ir::Expr *> Args,
                                     const ir::Type *Ty) const {
  return M.create<ir::CallExpr>(Ty, ir::CallExpr::CalleeKind::Math,
                                getSpelling(Id, Ty), Id, std::move(Args));
}

const ir::Expr *RuleTable::buildResult(ir::Module &M, int Id,
                                       std::vector<const ir::Expr *> Args,
                                       const ir::Type *Ty) const {
  const MathRule &R = Rules[Id];
  if (Args.size() != R.Arity)
    fatal("RuleTable::buildResult: bad argument count for " +
          R.displayName());
  switch (R.F) {
  case MathRule::Form::Function:
    return buildCall(M, Id, std::move(Args), Ty);
  case MathRule::Form::Unary:
    return M.create<ir::UnaryExpr>(Ty, ir::UnaryOp(R.OpCode), Args[0]);
  case MathRule::Form::Binary:
    return M.create<ir::BinaryExpr>(Ty, ir::BinaryOp(R.OpCode), Args[0],
                                    Args[1]);
  case MathRule::Form::Assign:
    break;
  }
  fatal("RuleTable::buildResult: an assignment has no result expression");
}

const RuleTable::ParsedPartial &RuleTable::partial(int Id,
                                                   unsigned ArgNo) const {
  if (Id < 0 || unsigned(Id) >= Rules.size() || ArgNo >= Parsed[Id].size())
    fatal("RuleTable: bad argument number for rule " + llvm::Twine(Id));
  return Parsed[Id][ArgNo];
}

RuleReads RuleTable::getReads(int Id, unsigned ArgNo, bool ResultKept) const {
  if (Parsed[Id].empty())
    return {};
  const ParsedPartial &P = partial(Id, ArgNo);
  return !ResultKept && P.Fallback ? P.FallbackReads : P.MainReads;
}

RuleReads RuleTable::getReadsOf(int Id, unsigned ArgMask,
                                bool ResultKept) const {
  RuleReads Sum;
  for (unsigned I = 0; I < Parsed[Id].size(); ++I)
    if (ArgMask & (1u << I))
      Sum += getReads(Id, I, ResultKept);
  return Sum;
}

bool RuleTable::isUnitPartial(int Id, unsigned ArgNo) const {
  if (Parsed[Id].empty())
    return false;
  const RuleExpr &E = *partial(Id, ArgNo).Main;
  return E.K == RuleExpr::Kind::Number && E.Value == 1.0;
}

const ir::Expr *
RuleTable::buildPartial(ir::Module &M, int Id, unsigned ArgNo,
                        const std::vector<const ir::Expr *> &Args,
                        const ir::Type *Ty, const ir::Expr *Result) const {
  if (Parsed[Id].empty())
    return nullptr;
  if (ArgNo >= Parsed[Id].size() || Args.size() != Rules[Id].Arity)
    fatal("RuleTable::buildPartial: bad argument number or count for " +
          Rules[Id].displayName());
  const ParsedPartial &P = Parsed[Id][ArgNo];
  if (!Result && P.Fallback)
    return instantiate(M, *P.Fallback, Args, nullptr, Ty);
  if (!Result && P.MainReads.Result > 0)
    Result = buildResult(M, Id, Args, Ty); // Recomputed.
  return instantiate(M, *P.Main, Args, Result, Ty);
}

const ir::Expr *
RuleTable::instantiate(ir::Module &M, const RuleExpr &E,
                       const std::vector<const ir::Expr *> &Args,
                       const ir::Expr *Result, const ir::Type *Ty) const {
  std::vector<const ir::Expr *> Ops;
  for (const std::unique_ptr<RuleExpr> &Op : E.Ops)
    Ops.push_back(instantiate(M, *Op, Args, Result, Ty));
  switch (E.K) {
  case RuleExpr::Kind::Number:
    return M.create<ir::FloatLitExpr>(Ty, E.Value, "");
  case RuleExpr::Kind::Arg:
    return Args[E.ArgNo];
  case RuleExpr::Kind::Result:
    return Result;
  case RuleExpr::Kind::Neg:
    return M.create<ir::UnaryExpr>(Ty, ir::UnaryOp::Neg, Ops[0]);
  case RuleExpr::Kind::Arith:
    return M.create<ir::BinaryExpr>(Ty, E.Op, Ops[0], Ops[1]);
  case RuleExpr::Kind::Compare:
    return M.create<ir::BinaryExpr>(M.getTypes().getBool(), E.Op, Ops[0],
                                    Ops[1]);
  case RuleExpr::Kind::Conditional:
    return M.create<ir::ConditionalExpr>(Ty, Ops[0], Ops[1], Ops[2]);
  case RuleExpr::Kind::Call:
    return buildCall(M, E.CalleeId, std::move(Ops), Ty);
  }
  llvm_unreachable("unknown rule expression kind");
}
