//===- AD/DerivedFunctions.cpp - Registry of generated code ---------------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//

#include "AD/DerivedFunctions.h"
#include "AD/Analysis/Activity.h"
#include "IR/Traversal.h"

#include <algorithm>
#include <cstdio>
#include <functional>

using namespace meshad;

std::string meshad::structArgMessage(const ir::Function &Callee,
                                     unsigned I) {
  const ir::Var *P = Callee.getParam(I);
  if (I == 0 && Callee.getCallOperatorKind() ==
                    ir::Function::CallOperatorKind::Functor)
    return "cannot differentiate the call of the functor '" +
           P->getType()->getSpelling() +
           "': its members carry derivatives (values computed from the "
           "inputs), and meshad does not differentiate through a functor's "
           "members yet; pass those values as arguments of operator(), or "
           "call a lambda that captures them";
  return "cannot differentiate the call of '" + Callee.getName() +
         "': its argument '" + P->getName() + "' is a '" +
         P->getType()->getSpelling() +
         "' holding derivative-carrying values, and meshad does not "
         "differentiate through struct values passed to functions yet; pass "
         "the members separately";
}

std::string meshad::baseName(const ir::Function &F) {
  llvm::StringRef Name = F.getName();
  if (!Name.consume_front("operator") || Name.empty() ||
      isalnum(static_cast<unsigned char>(Name[0])) || Name[0] == '_')
    return F.getName();
  static const std::pair<const char *, const char *> Words[] = {
      {"+=", "plus_assign"}, {"-=", "minus_assign"}, {"*=", "times_assign"},
      {"/=", "divide_assign"}, {"+", "plus"}, {"-", "minus"},
      {"*", "times"}, {"/", "divide"}, {"==", "equal"}, {"[]", "index"},
      {"()", "call"}};
  for (auto [Symbol, Word] : Words)
    if (Name == Symbol)
      return std::string("operator_") + Word;
  std::string Hex = "operator";
  for (char C : Name)
    Hex += "_" + std::to_string(static_cast<unsigned char>(C));
  return Hex;
}

std::string meshad::derivedName(const ir::Function &Primal,
                                const std::vector<bool> &Flags,
                                const char *Suffix) {
  std::string Indices;
  bool All = true;
  for (unsigned I = 0; I < Primal.getNumParams(); ++I) {
    if (I < Flags.size() && Flags[I])
      Indices += "_" + std::to_string(I);
    else if (Primal.getParam(I)->getType()->isDifferentiable())
      All = false;
  }
  return baseName(Primal) + Suffix + (All ? "" : Indices);
}

bool meshad::checkDefinitionVisible(const ir::Function &Callee,
                                    clang::SourceLocation CallLoc,
                                    DiagnosticSink &Diags) {
  if (Callee.getBody())
    return true;
  Diags.error(CallLoc, "cannot differentiate the call of '" +
                           Callee.getName() +
                           "': its definition is not visible here");
  return false;
}

ir::Function *DerivedFunctionSet::create(ir::Module &M, ir::Function *Primal,
                                         const std::string &Name,
                                         const ir::Type *RetTy) {
  ir::Function *Result = M.createFunction(Name, RetTy, Primal->getTarget());
  Result->setQualifiers(Primal->getQualifiers());
  Result->setNamespace(Primal->getNamespace());
  Result->setLoc(Primal->getLoc());
  add(keyFor(Primal, Name), Result, Primal);
  return Result;
}

bool meshad::checkStructResult(const ir::Function &Callee,
                               const std::vector<bool> &Active,
                               clang::SourceLocation CallLoc,
                               DiagnosticSink &Diags) {
  const ir::Type *Ret = Callee.getReturnType();
  if (Ret->getKind() != ir::Type::Kind::Opaque || !Callee.getBody())
    return true;
  llvm::SmallPtrSet<const ir::Var *, 8> Seeds;
  for (unsigned I = 0; I < Active.size() && I < Callee.getNumParams(); ++I)
    if (Active[I])
      Seeds.insert(Callee.getParam(I));
  if (!ActivityAnalysis(Callee, Seeds).mayReturnVaried(Callee))
    return true;
  Diags.error(CallLoc, "cannot differentiate the call of '" +
                           Callee.getName() + "': it returns a '" +
                           Ret->getSpelling() +
                           "' built from derivative-carrying values, and "
                           "meshad does not differentiate through struct "
                           "values yet; return the values separately or "
                           "write them through pointer parameters");
  return false;
}

std::string DerivedFunctionSet::keyFor(const ir::Function *Primal,
                                       const std::string &Name) {
  char Buf[32];
  std::snprintf(Buf, sizeof(Buf), "%p", static_cast<const void *>(Primal));
  return std::string(Buf) + "|" + Name;
}

void DerivedFunctionSet::recomputeCalls(ir::Function *Caller) {
  auto It = ByFunction.find(Caller);
  if (It == ByFunction.end() || !Caller->getBody())
    return;
  std::set<ir::Function *> Callees;
  ir::forEachStmt(Caller->getBody(), [&](const ir::Stmt *S) {
    if (const auto *L = llvm::dyn_cast<ir::LaunchStmt>(S))
      if (find(L->getKernel()))
        Callees.insert(L->getKernel());
    for (const ir::Expr *E : ir::ownExprs(S))
      ir::forEachExpr(E, [&](const ir::Expr *X) {
        const auto *C = llvm::dyn_cast<ir::CallExpr>(X);
        if (C && C->getUserCallee() && find(C->getUserCallee()))
          Callees.insert(C->getUserCallee());
      });
  });
  Entries[It->second].Callees = std::move(Callees);
}

void DerivedFunctionSet::truncate(size_t Size) {
  while (Entries.size() > Size) {
    ir::Function *F = Entries.back().Derived;
    ByFunction.erase(F);
    for (auto It = ByKey.begin(); It != ByKey.end();)
      It = It->second == Entries.size() - 1 ? ByKey.erase(It) : std::next(It);
    Entries.pop_back();
  }
}

void DerivedFunctionSet::remove(const ir::Function *F) {
  auto It = ByFunction.find(F);
  if (It == ByFunction.end())
    return;
  size_t Index = It->second;
  Entries.erase(Entries.begin() + Index);
  for (DerivedFunction &E : Entries)
    E.Callees.erase(const_cast<ir::Function *>(F));
  std::map<std::string, size_t> Keys;
  for (auto &[Key, I] : ByKey)
    if (I != Index)
      Keys[Key] = I > Index ? I - 1 : I;
  ByKey = std::move(Keys);
  ByFunction.clear();
  for (size_t I = 0; I < Entries.size(); ++I)
    ByFunction[Entries[I].Derived] = I;
}

std::vector<ir::Function *>
DerivedFunctionSet::closure(ir::Function *Root) const {
  std::vector<ir::Function *> Order;
  std::set<ir::Function *> Seen;
  auto Rank = [&](const ir::Function *F) {
    auto It = ByFunction.find(F);
    return It == ByFunction.end() ? Entries.size() : It->second;
  };
  std::function<void(ir::Function *)> Visit = [&](ir::Function *F) {
    if (!Seen.insert(F).second)
      return;
    if (const DerivedFunction *D = find(F)) {
      // In the order they were generated, not of their addresses: the
      // handles' code is the same from run to run.
      std::vector<ir::Function *> Callees(D->Callees.begin(), D->Callees.end());
      std::stable_sort(
          Callees.begin(), Callees.end(),
          [&](ir::Function *A, ir::Function *B) { return Rank(A) < Rank(B); });
      for (ir::Function *C : Callees)
        Visit(C);
    }
    Order.push_back(F);
  };
  Visit(Root);
  return Order;
}
