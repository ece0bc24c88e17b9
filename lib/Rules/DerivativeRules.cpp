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
  parseRules();
}

RuleTable::~RuleTable() = default;

/// Reports a bug of DerivativeRules.def (or of a caller of the table): these
/// are developer errors, never user input, so they stop the compiler loudly.
[[noreturn]] static void fatal(const llvm::Twine &Msg) {
  llvm::reportFatalInternalError("meshad: " + Msg);
}

[[noreturn]] static void badRule(const MathRule &R, const llvm::Twine &Msg) {
  const std::string &Name = R.DoubleName.empty() ? R.FloatName : R.DoubleName;
  fatal("DerivativeRules.def: " + Name + ": " + Msg);
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
  if (R.DoubleName.empty() && R.FloatName.empty())
    badRule(R, "has no name");
  Rules.push_back(std::move(R));
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
    for (const std::string &Text : R.Partials) {
      llvm::Expected<std::unique_ptr<RuleExpr>> E = parseRule(Text, R.Arity);
      if (!E)
        badRule(R, llvm::toString(E.takeError()));
      resolveCalls(R, **E);
      Parsed[Id].push_back(std::move(*E));
    }
  }
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

const ir::Expr *
RuleTable::buildPartial(ir::Module &M, int Id, unsigned ArgNo,
                        const std::vector<const ir::Expr *> &Args,
                        const ir::Type *Ty) const {
  if (Parsed[Id].empty())
    return nullptr;
  if (ArgNo >= Parsed[Id].size() || Args.size() != Rules[Id].Arity)
    fatal("RuleTable::buildPartial: bad argument number or count for " +
          getSpelling(Id, Ty));
  return instantiate(M, *Parsed[Id][ArgNo], Args, Ty);
}

const ir::Expr *
RuleTable::instantiate(ir::Module &M, const RuleExpr &E,
                       const std::vector<const ir::Expr *> &Args,
                       const ir::Type *Ty) const {
  std::vector<const ir::Expr *> Ops;
  for (const std::unique_ptr<RuleExpr> &Op : E.Ops)
    Ops.push_back(instantiate(M, *Op, Args, Ty));
  switch (E.K) {
  case RuleExpr::Kind::Number:
    return M.create<ir::FloatLitExpr>(Ty, E.Value, "");
  case RuleExpr::Kind::Arg:
    return Args[E.ArgNo];
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
