//===- Driver/GeneratedNames.cpp - Generated names vs the user's ----------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//

#include "Driver/GeneratedNames.h"
#include "IR/Traversal.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/DeclCXX.h"

#include <map>
#include <set>

using namespace meshad;
using namespace clang;

void meshad::reserveNamespaceScopeNames(const DeclContext *DC,
                                        ir::NameScope &Names) {
  for (const Decl *D : DC->decls()) {
    if (const auto *ND = dyn_cast<NamedDecl>(D))
      if (const IdentifierInfo *II = ND->getIdentifier())
        Names.reserve(II->getName().str());
    if (isa<NamespaceDecl>(D) || isa<LinkageSpecDecl>(D))
      reserveNamespaceScopeNames(cast<DeclContext>(D), Names);
  }
}

void meshad::uniqueFunctionNames(ASTContext &Ctx,
                                 const DerivedFunctionSet &Derived,
                                 const ir::NameScope &TUNames) {
  std::set<std::string> Signatures;
  for (const DerivedFunction &Entry : Derived.entries()) {
    ir::Function *F = Entry.Derived;
    std::string Params;
    for (const ir::Var *P : F->getParams())
      Params += ir::spellType(P->getType()) + ",";
    auto SignatureWith = [&](const std::string &Name) {
      return F->getNamespace() + "::" + Name + "(" + Params + ")";
    };
    auto Taken = [&](const std::string &Name) {
      auto It = Ctx.Idents.find(Name);
      return TUNames.contains(Name) || Signatures.count(SignatureWith(Name)) ||
             (It != Ctx.Idents.end() && It->second->hasMacroDefinition());
    };
    std::string Base = F->getName(), Name = Base;
    for (unsigned N = 1; Taken(Name); ++N)
      Name = Base + "_" + std::to_string(N);
    F->setName(Name);
    Signatures.insert(SignatureWith(Name));
  }
}

/// The name an unqualified call spells \p Callee with ("cos" for
/// "cos", "atomicAdd<double>" -> "atomicAdd"); empty when qualified.
static std::string unqualifiedName(const std::string &Callee) {
  std::string Name = Callee.substr(0, Callee.find('<'));
  return Name.find("::") == std::string::npos ? Name : "";
}

bool meshad::checkHiddenCallees(const DerivedFunctionSet &Derived,
                                DiagnosticSink &Diags) {
  bool Ok = true;
  for (const DerivedFunction &Entry : Derived.entries()) {
    const ir::Function &F = *Entry.Derived;
    // The variables by name, where the primal declares them.
    std::map<std::string, clang::SourceLocation> Vars;
    ir::forEachStmt(Entry.Primal->getBody(), [&](const ir::Stmt *S) {
      if (const auto *D = dyn_cast<ir::DeclStmt>(S))
        Vars.try_emplace(D->getVar()->getName(), S->getLoc());
    });
    for (const ir::Var *P : F.getParams())
      Vars.try_emplace(P->getName(), Entry.Primal->getLoc());
    ir::forEachStmt(F.getBody(), [&](const ir::Stmt *S) {
      if (const auto *D = dyn_cast<ir::DeclStmt>(S))
        Vars.try_emplace(D->getVar()->getName(), Entry.Primal->getLoc());
    });
    std::set<std::string> Reported;
    ir::forEachStmt(F.getBody(), [&](const ir::Stmt *S) {
      for (const ir::Expr *E : ir::ownExprs(S))
        ir::forEachExpr(E, [&](const ir::Expr *Sub) {
          const auto *C = dyn_cast<ir::CallExpr>(Sub);
          if (!C || C->getCalleeKind() == ir::CallExpr::CalleeKind::User)
            return;
          std::string Name = unqualifiedName(C->getName());
          auto It = Vars.find(Name);
          if (It == Vars.end() || !Reported.insert(Name).second)
            return;
          Diags.error(It->second.isValid() ? It->second
                                           : Entry.Primal->getLoc(),
                      "meshad: the variable '" + Name + "' of '" +
                          Entry.Primal->getName() + "' hides the function '" +
                          Name + "' that its derivative '" + F.getName() +
                          "' calls; rename the variable");
          Ok = false;
        });
    });
  }
  return Ok;
}
