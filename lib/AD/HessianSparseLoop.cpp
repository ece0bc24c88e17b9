//===- AD/HessianSparseLoop.cpp - Sparse Hessians of loops ----------------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//

#include "AD/HessianSparseLoop.h"
#include "AD/HessianSparseLoopShape.h"
#include "AD/Analysis/Activity.h"
#include "AD/Analysis/ReverseNeeds.h"
#include "Analysis/IndexForms.h"
#include "IR/Builder.h"
#include "IR/Clone.h"
#include "IR/NameScope.h"
#include "IR/Traversal.h"

using namespace meshad;
using namespace meshad::ir;
using llvm::dyn_cast;

namespace {

using ownership::Affine;
using ownership::AtomKind;

bool refersTo(const Expr *E, const Var *V) {
  bool Found = false;
  if (E)
    forEachExpr(E, [&](const Expr *Sub) {
      const auto *R = dyn_cast<VarRefExpr>(Sub);
      Found |= R && R->getVar() == V;
    });
  return Found;
}

/// A new host function \p Name beside \p F, registered as derived from it.
Function *besidePrimal(Module &M, DerivedFunctionSet &Derived, Function *F,
                       const std::string &Name, const Type *Ret,
                       CudaTarget Target) {
  Function *New = M.createFunction(Name, Ret, Target);
  New->setNamespace(F->getNamespace());
  New->setLoc(F->getLoc());
  New->setSourceDecl(F->getSourceDecl());
  Derived.add(DerivedFunctionSet::keyFor(F, Name), New, F);
  return New;
}

/// <f>_term(params less x..., invariants..., i, x): one iteration of \p L
/// as a function of its entries x[0..K), returning its signed terms.
Function *buildTerm(Module &M, DerivedFunctionSet &Derived, Function *F,
                    const Var *X, const SparseLoopShape &S, const SparseLoop &L,
                    const std::string &Name) {
  const Type *T = X->getType()->getElement()->getUnqualified();
  TypeContext &Types = M.getTypes();
  Function *Term = besidePrimal(M, Derived, F, Name, T, F->getTarget());
  IRBuilder B(M);
  IRCloner C(M);
  llvm::DenseMap<const Var *, Var *> Renamed;
  std::vector<Var *> Params;
  auto AddParam = [&](const Var *V) {
    Params.push_back(M.createVar(V->getName(), V->getType()->getUnqualified(),
                                 Var::Storage::Param));
    Renamed[V] = Params.back();
  };
  for (Var *P : F->getParams())
    if (P != X)
      AddParam(P);
  for (Var *V : L.Invariants)
    AddParam(V);
  AddParam(L.Counter);
  Var *NewX = M.createVar(X->getName(), Types.getPointer(Types.getConst(T)),
                          Var::Storage::Param);
  Params.push_back(NewX);
  Term->setParams(Params);
  BlockStmt *Body = B.block();
  for (const Var *Acc : L.Accs) {
    Renamed[Acc] = M.createVar(Acc->getName(), T);
    Body->append(M.create<DeclStmt>(Renamed[Acc], B.zero(T)));
  }
  C.setExprHook([&](const Expr *Ex) -> const Expr * {
    if (const auto *R = dyn_cast<VarRefExpr>(Ex)) {
      auto It = Renamed.find(R->getVar());
      return It == Renamed.end() ? nullptr : B.ref(It->second);
    }
    const auto *I = dyn_cast<IndexExpr>(Ex);
    auto It = I ? L.Local.find(I) : L.Local.end();
    return It == L.Local.end() ? nullptr
                               : B.index(B.ref(NewX), B.intLit(It->second));
  });
  forEachStmt(L.Loop->getBody(), [&](const Stmt *St) {
    if (const auto *D = dyn_cast<DeclStmt>(St))
      C.freshVar(D->getVar());
  });
  for (const Stmt *St : L.Loop->getBody()->getBody())
    if (const Stmt *New = C.clone(St))
      Body->append(New);
  const Expr *Sum = nullptr;
  for (bool Minus : {false, true}) // `a - b` rather than `-b + a`
    for (const Var *Acc : L.Accs) {
      if ((S.Signs.at(Acc) < 0) != Minus)
        continue;
      const Expr *Ref = B.ref(Renamed[Acc]);
      Sum = !Sum ? (Minus ? B.neg(Ref) : Ref)
                 : (Minus ? B.sub(Sum, Ref) : B.add(Sum, Ref));
    }
  Body->append(M.create<ReturnStmt>(Sum ? Sum : B.zero(T)));
  Term->setBody(Body);
  return Term;
}

/// `Name(Args)`, a helper of meshad/codegen/SparseLoop.h.
const Stmt *helperCall(Module &M, const std::string &Name,
                       std::vector<const Expr *> Args) {
  return M.create<ExprStmt>(M.create<CallExpr>(M.getTypes().getVoid(),
                                               CallExpr::CalleeKind::Intrinsic,
                                               Name, -1, std::move(Args)));
}

/// The pairs (j, l) of entries that interact in one iteration: bit j*K + l.
unsigned long long pairMask(const HessianPatternInfo &P) {
  unsigned long long Mask = 0;
  for (unsigned E = 0; E < P.Value.size(); ++E)
    if (P.Value[E] >= 0)
      Mask |= 1ull << E;
  return Mask;
}

/// One loop's term and local Hessian.
struct LoopTerm {
  Function *LocalHessian = nullptr;
  unsigned long long Mask = 0;
  const HessianPatternInfo *Pattern = nullptr;
};

/// Builds <f>_hessian_sparse: the declarations the loops need,
/// sparseLoopBegin, per loop and iteration the rows, the gather, the local
/// Hessian and sparseLoopAdd, then sparseLoopEnd.
class SparseFunctionBuilder {
public:
  SparseFunctionBuilder(Module &M, Function *F, const Var *X,
                        const SparseLoopShape &S)
      : M(M), B(M), C(M), F(F), X(X), S(S) {
    Names.addFunction(*F);
  }
  Function *build(DerivedFunctionSet &Derived, const std::string &Name,
                  const std::vector<LoopTerm> &Terms);

private:
  /// The declarations outside the loops that their bounds and terms read.
  std::vector<const DeclStmt *> neededDecls() const;
  /// The index \p Form of an entry of loop \p L as an expression.
  const Expr *row(const Affine &Form, unsigned L);
  BlockStmt *iteration(unsigned L, const LoopTerm &Term, bool IsAffine);

  Module &M;
  IRBuilder B;
  IRCloner C;
  Function *F;
  const Var *X;
  const SparseLoopShape &S;
  NameScope Names;
  llvm::DenseMap<const Var *, Var *> Params;
  Var *H = nullptr;
};

std::vector<const DeclStmt *> SparseFunctionBuilder::neededDecls() const {
  std::vector<const DeclStmt *> Out;
  std::vector<const Expr *> Reads;
  std::vector<const Var *> Vars;
  for (const SparseLoop &L : S.Loops) {
    Reads.insert(Reads.end(), {L.Lo, L.Hi});
    Vars.insert(Vars.end(), L.Invariants.begin(), L.Invariants.end());
  }
  for (auto It = S.Decls.rbegin(); It != S.Decls.rend(); ++It)
    if (llvm::is_contained(Vars, (*It)->getVar()) ||
        llvm::any_of(Reads, [&](const Expr *R) {
          return refersTo(R, (*It)->getVar());
        })) {
      Out.insert(Out.begin(), *It);
      Reads.push_back((*It)->getInit());
    }
  return Out;
}

const Expr *SparseFunctionBuilder::row(const Affine &Form, unsigned L) {
  const Expr *Sum = nullptr;
  for (const auto &[Mono, Coeff] : Form.Terms) {
    const ownership::Atom &A = Mono.front();
    const Expr *Atom = nullptr;
    if (A.Kind == AtomKind::Gathered) {
      const ownership::GatherInfo &G = S.Evaluator->getGather(A.Id);
      Atom = B.index(B.ref(Params[G.Array]), row(G.Position, L));
    } else {
      Atom = B.ref(C.mapVar(S.Loops[L].Counter));
    }
    long long Abs = Coeff < 0 ? -Coeff : Coeff;
    const Expr *Term = Abs == 1 ? Atom : B.mul(B.intLit(Abs), Atom);
    Sum = !Sum ? (Coeff < 0 ? B.neg(Term) : Term)
               : (Coeff < 0 ? B.sub(Sum, Term) : B.add(Sum, Term));
  }
  long long Abs = Form.Const < 0 ? -Form.Const : Form.Const;
  if (!Sum)
    return B.intLit(Form.Const);
  if (!Form.Const)
    return Sum;
  return Form.Const < 0 ? B.sub(Sum, B.intLit(Abs)) : B.add(Sum, B.intLit(Abs));
}

/// The stride and offset of each entry of \p Loop when every entry is
/// `S * i + c` of its counter alone (and there are at most 8); else empty.
static std::vector<long long> affineForms(const SparseLoop &Loop,
                                          const ownership::Atom &Counter) {
  std::vector<long long> Forms;
  if (Loop.Entries.size() > 8)
    return {};
  for (const Affine &Form : Loop.Entries) {
    long long Stride = 0;
    for (const auto &[Mono, Coeff] : Form.Terms) {
      if (Mono.size() != 1 || !(Mono.front() == Counter))
        return {};
      Stride = Coeff;
    }
    Forms.insert(Forms.end(), {Stride, Form.Const});
  }
  return Forms;
}

BlockStmt *SparseFunctionBuilder::iteration(unsigned L, const LoopTerm &Term,
                                            bool IsAffine) {
  const SparseLoop &Loop = S.Loops[L];
  const Type *T = X->getType()->getElement()->getUnqualified();
  TypeContext &Types = M.getTypes();
  unsigned K = static_cast<unsigned>(Loop.Entries.size());
  const Type *RowsTy = Types.getArray(Types.getInt(), K);
  const Type *LocalTy = Types.getArray(T, K);
  Var *Rows = IsAffine ? nullptr
                     : M.createVar(Names.unique(X->getName() + "_rows"), RowsTy);
  Var *XL = M.createVar(Names.unique(X->getName() + "_l"), LocalTy);
  Var *HL = M.createVar(Names.unique("hl"), Types.getArray(T, K * K));
  std::vector<const Expr *> RowExprs, Gathered;
  for (unsigned J = 0; J < K; ++J) {
    RowExprs.push_back(row(Loop.Entries[J], L));
    Gathered.push_back(B.index(B.ref(Params[X]),
                               IsAffine ? RowExprs.back()
                                      : B.index(B.ref(Rows), B.intLit(J))));
  }
  BlockStmt *Out = B.block();
  if (!IsAffine)
    Out->append(M.create<DeclStmt>(
        Rows, M.create<InitListExpr>(RowsTy, std::move(RowExprs))));
  Out->append(M.create<DeclStmt>(
      XL, M.create<InitListExpr>(LocalTy, std::move(Gathered))));
  Out->append(M.create<DeclStmt>(HL, nullptr));
  std::vector<const Expr *> Args;
  for (Var *P : F->getParams())
    if (P != X)
      Args.push_back(B.ref(Params[P]));
  for (Var *V : Loop.Invariants)
    Args.push_back(B.ref(C.mapVar(V)));
  for (Var *V : {C.mapVar(Loop.Counter), XL, HL})
    Args.push_back(B.ref(V));
  Out->append(M.create<ExprStmt>(M.create<CallExpr>(
      Types.getVoid(), Term.LocalHessian, std::move(Args))));
  std::string Targs =
      "<" + std::to_string(K) + ", " + std::to_string(Term.Mask) + "ull>";
  if (IsAffine)
    Out->append(helperCall(M, "meshad::sparseLoopAffineAdd" + Targs,
                           {B.ref(H), B.ref(HL)}));
  else
    Out->append(helperCall(M, "meshad::sparseLoopAdd" + Targs,
                           {B.ref(H), B.ref(Rows), B.ref(HL)}));
  return Out;
}

Function *SparseFunctionBuilder::build(DerivedFunctionSet &Derived,
                                       const std::string &Name,
                                       const std::vector<LoopTerm> &Terms) {
  TypeContext &Types = M.getTypes();
  const Type *T = X->getType()->getElement()->getUnqualified();
  Function *W = besidePrimal(M, Derived, F, Name, Types.getVoid(),
                             CudaTarget::HostOnly);
  std::vector<Var *> Ps;
  for (Var *P : F->getParams()) {
    Params[P] = M.createVar(P->getName(), P->getType(), Var::Storage::Param);
    Ps.push_back(Params[P]);
  }
  H = M.createVar(Names.unique("H"),
                  Types.getPointer(Types.getOpaque("meshad::SparseMatrix<" +
                                                   spellType(T) + ">")),
                  Var::Storage::Param);
  Ps.push_back(H);
  W->setParams(Ps);
  C.setExprHook([&](const Expr *Ex) -> const Expr * {
    const auto *R = dyn_cast<VarRefExpr>(Ex);
    auto It = R ? Params.find(R->getVar()) : Params.end();
    return It == Params.end() ? nullptr : B.ref(It->second);
  });
  BlockStmt *Body = B.block();
  for (const DeclStmt *D : neededDecls()) {
    C.freshVar(D->getVar());
    Body->append(C.clone(D));
  }
  Body->append(helperCall(M, "meshad::sparseLoopBegin", {B.ref(H)}));
  for (unsigned L = 0; L < S.Loops.size(); ++L) {
    const ForStmt *Loop = S.Loops[L].Loop;
    // An affine loop is announced once, its rows never computed.
    std::vector<long long> Forms = affineForms(S.Loops[L], S.CounterAtoms[L]);
    if (!Forms.empty()) {
      std::string Targs = "<" + std::to_string(Forms.size() / 2) + ", " +
                          std::to_string(Terms[L].Mask) + "ull";
      for (long long V : Forms)
        Targs += ", " + std::to_string(V);
      Body->append(helperCall(M, "meshad::sparseLoopAffine" + Targs + ">",
                              {B.ref(H), C.clone(S.Loops[L].Lo),
                               C.clone(S.Loops[L].Hi)}));
    }
    C.freshVar(S.Loops[L].Counter);
    auto *New = M.create<ForStmt>(C.clone(Loop->getInit()),
                                  C.clone(Loop->getCond()),
                                  C.clone(Loop->getInc()),
                                  iteration(L, Terms[L], !Forms.empty()));
    New->setLoc(Loop->getLoc());
    Body->append(New);
    Derived.addCall(W, Terms[L].LocalHessian);
  }
  Body->append(helperCall(M, "meshad::sparseLoopEnd", {B.ref(H)}));
  W->setBody(Body);
  return W;
}

std::string remarkText(const Function &F, const Var *X,
                       const SparseLoopShape &S, unsigned L,
                       const LoopTerm &Term) {
  bool IsAffine = !affineForms(S.Loops[L], S.CounterAtoms[L]).empty();
  const SparseLoop &Loop = S.Loops[L];
  std::string Reads;
  for (const Affine &Form : Loop.Entries)
    Reads += (Reads.empty() ? "" : ", ") + X->getName() + "[" +
             S.Evaluator->spell(Form) + "]";
  unsigned Pairs = 0;
  for (unsigned long long M = Term.Mask; M; M &= M - 1)
    ++Pairs;
  std::string Which =
      S.Loops.size() == 1
          ? "the loop"
          : "loop " + std::to_string(L + 1) + " of " +
                std::to_string(S.Loops.size());
  return "sparse hessian of '" + F.getName() + "' w.r.t. '" + X->getName() +
         "': each iteration of " + Which + " over " +
         Loop.Counter->getName() + " reads " + Reads + "; local Hessian of " +
         std::to_string(Loop.Entries.size()) + " entries: " +
         std::to_string(Term.Pattern->NumValues) + " unique values, " +
         std::to_string(Pairs) +
         " nonzero entries, added into CSR slots (meshad::SparseMatrix, "
         "the pattern built on the first call from the rows the iterations "
         "read, O(nnz), kept while they stay the same" +
         (IsAffine ? "; an affine loop: its bounds recorded and compared, its "
                   "rows computed when the pattern is built)"
                 : ")");
}

} // namespace

/// \p F, or a copy of it whose loops' bodies have their small constant
/// loops unrolled (`for (int k = 0; k < 3; ++k) d += x[3 * i + k] * ...`
/// reads the entries 3i, 3i + 1, 3i + 2): nested loops of constant trip
/// count fit the shape; the top-level loops themselves stay loops.
static Function *unrollInnerLoops(Module &M, Function &F) {
  IRBuilder B(M);
  BlockStmt *Body = B.block();
  bool Changed = false;
  for (const Stmt *S : F.getBody()->getBody()) {
    const auto *Loop = dyn_cast<ForStmt>(S);
    if (!Loop) {
      Body->append(S);
      continue;
    }
    Function *Inner = M.createFunction(F.getName(), F.getReturnType(),
                                       F.getTarget());
    Inner->setParams(F.getParams());
    Inner->setBody(const_cast<BlockStmt *>(Loop->getBody()));
    Function *Unrolled = unrollSmallLoops(M, *Inner);
    Changed |= Unrolled != Inner;
    auto *New = M.create<ForStmt>(Loop->getInit(), Loop->getCond(),
                                  Loop->getInc(), Unrolled->getBody());
    New->setLoc(Loop->getLoc());
    Body->append(New);
  }
  if (!Changed)
    return &F;
  Function *Copy = M.createFunction(F.getName(), F.getReturnType(),
                                    F.getTarget());
  Copy->setTemplateArgs(F.getTemplateArgs());
  Copy->setNamespace(F.getNamespace());
  Copy->setQualifiers(F.getQualifiers());
  Copy->setSourceDecl(F.getSourceDecl());
  Copy->setLoc(F.getLoc());
  Copy->setParams(F.getParams());
  Copy->setBody(Body);
  return Copy;
}

ir::Function *SparseLoopHessianBuilder::derive(Function *Primal,
                                               unsigned XParam,
                                               const std::string &Name,
                                               clang::SourceLocation Loc) {
  auto Key = std::make_pair(static_cast<const Function *>(Primal), XParam);
  if (Function *Found = Done[Key])
    return Found;
  Function *F = unrollInnerLoops(M, *Primal);
  const Var *X = F->getParam(XParam);
  SparseLoopShape S;
  clang::SourceLocation At;
  std::string Why;
  if (!analyzeSparseLoops(M, *F, X, S, At, Why)) {
    Diags.error(At.isValid() ? At : Loc,
                "meshad::hessian(" + F->getName() + ", \"" + X->getName() +
                    "\", meshad::Sparse): " + Why);
    return nullptr;
  }
  std::vector<LoopTerm> Terms(S.Loops.size());
  for (unsigned L = 0; L < S.Loops.size(); ++L) {
    std::string TermName =
        F->getName() + "_term" + (L ? std::to_string(L + 1) : "");
    Function *Term = buildTerm(M, Derived, F, X, S, S.Loops[L], TermName);
    unsigned K = static_cast<unsigned>(S.Loops[L].Entries.size());
    HessianLayout Layout;
    Layout.Blocks = {{Term->getNumParams() - 1, 0, K, 0, false}};
    Layout.Size = K;
    Terms[L].LocalHessian =
        Hessian.deriveHessian(Term, Layout, TermName + "_hessian", Loc);
    Terms[L].Pattern = Terms[L].LocalHessian
                           ? Hessian.patternOf(Terms[L].LocalHessian)
                           : nullptr;
    if (!Terms[L].Pattern)
      return nullptr;
    Terms[L].Mask = pairMask(*Terms[L].Pattern);
  }
  SparseFunctionBuilder Builder(M, F, X, S);
  Function *W = Builder.build(Derived, Name, Terms);
  for (unsigned L = 0; L < S.Loops.size(); ++L)
    Diags.remark(Loc, remarkText(*F, X, S, L, Terms[L]));
  Done[Key] = W;
  return W;
}
