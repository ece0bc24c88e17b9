//===- AD/HessianSparseLoop.cpp - Sparse Hessians of loops ----------------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//

#include "AD/HessianSparseLoop.h"
#include "AD/HessianSparseLoopBuilder.h"
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


namespace meshad {
namespace sparseloop {

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

const Type *elementType(const SparseLoopShape &S) {
  return S.Arrays.front()->getType()->getElement()->getUnqualified();
}

/// The sum of loop \p L's accumulators (their copies in \p Renamed), signed
/// as in the return: `a - b` rather than `-b + a`.
const Expr *signedSum(IRBuilder &B, const SparseLoopShape &S,
                      const SparseLoop &L,
                      const llvm::DenseMap<const Var *, Var *> &Renamed) {
  const Expr *Sum = nullptr;
  for (bool Minus : {false, true})
    for (const Var *Acc : L.Accs) {
      if ((S.Signs.at(Acc) < 0) != Minus)
        continue;
      const Expr *Ref = B.ref(Renamed.lookup(Acc));
      Sum = !Sum ? (Minus ? B.neg(Ref) : Ref)
                 : (Minus ? B.sub(Sum, Ref) : B.add(Sum, Ref));
    }
  return Sum;
}

/// The parameters of loop \p L's term: f's less the selected arrays (into
/// \p Renamed), the invariants, the counters, then a pointer per array the
/// loop reads (into \p Locals).
std::vector<Var *> termParams(Module &M, Function *F, const SparseLoopShape &S,
                              const SparseLoop &L,
                              llvm::DenseMap<const Var *, Var *> &Renamed,
                              std::vector<Var *> &Locals) {
  TypeContext &Types = M.getTypes();
  std::vector<Var *> Params;
  auto AddParam = [&](const Var *V) {
    Params.push_back(M.createVar(V->getName(), V->getType()->getUnqualified(),
                                 Var::Storage::Param));
    Renamed[V] = Params.back();
  };
  for (Var *P : F->getParams())
    if (!llvm::is_contained(S.Arrays, P))
      AddParam(P);
  for (Var *V : L.Invariants)
    AddParam(V);
  AddParam(L.Counter);
  if (L.InnerCounter)
    AddParam(L.InnerCounter);
  Locals.assign(S.Arrays.size(), nullptr);
  for (unsigned A = 0; A < S.Arrays.size(); ++A)
    if (L.countOf(A)) {
      Locals[A] = M.createVar(S.Arrays[A]->getName(),
                              Types.getPointer(Types.getConst(elementType(S))),
                              Var::Storage::Param);
      Params.push_back(Locals[A]);
    }
  return Params;
}

/// <f>_term(params less the arrays..., invariants..., i, x, v...): one
/// iteration of \p L as a function of its entries (x[0..K_x) of each
/// selected array it reads), returning its signed terms.
Function *buildTerm(Module &M, DerivedFunctionSet &Derived, Function *F,
                    const SparseLoopShape &S, const SparseLoop &L,
                    const std::string &Name) {
  const Type *T = elementType(S);
  Function *Term = besidePrimal(M, Derived, F, Name, T, F->getTarget());
  IRBuilder B(M);
  IRCloner C(M);
  llvm::DenseMap<const Var *, Var *> Renamed;
  std::vector<Var *> Locals;
  Term->setParams(termParams(M, F, S, L, Renamed, Locals));
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
    if (It == L.Local.end())
      return nullptr;
    unsigned A = L.Entries[It->second].Array;
    return B.index(B.ref(Locals[A]), B.intLit(It->second - L.firstOf(A)));
  });
  forEachStmt(L.body(), [&](const Stmt *St) {
    if (const auto *D = dyn_cast<DeclStmt>(St))
      C.freshVar(D->getVar());
  });
  for (const Stmt *St : L.body()->getBody())
    if (const Stmt *New = C.clone(St))
      Body->append(New);
  const Expr *Sum = signedSum(B, S, L, Renamed);
  Body->append(M.create<ReturnStmt>(Sum ? Sum : B.zero(T)));
  Term->setBody(Body);
  return Term;
}

const Stmt *helperCall(Module &M, const std::string &Name,
                       std::vector<const Expr *> Args) {
  return M.create<ExprStmt>(M.create<CallExpr>(M.getTypes().getVoid(),
                                               CallExpr::CalleeKind::Intrinsic,
                                               Name, -1, std::move(Args)));
}

/// The pairs (j, l) of entries that interact in one iteration: bit j*K + l,
/// in 64-bit words.
std::vector<unsigned long long> pairMask(const HessianPatternInfo &P) {
  std::vector<unsigned long long> Words((P.Value.size() + 63) / 64, 0);
  for (unsigned E = 0; E < P.Value.size(); ++E)
    if (P.Value[E] >= 0)
      Words[E / 64] |= 1ull << (E % 64);
  return Words;
}


std::vector<const DeclStmt *>
SparseFunctionBuilder::neededDecls(bool Bounds, bool Terms, int Only) const {
  std::vector<const DeclStmt *> Out;
  std::vector<const Expr *> Reads;
  std::vector<const Var *> Vars;
  for (const SparseLoop &L : S.Loops) {
    if (Only >= 0 && &L != &S.Loops[Only])
      continue;
    if (Bounds)
      Reads.insert(Reads.end(), {L.Lo, L.Hi});
    if (Bounds && L.Inner)
      Reads.insert(Reads.end(), {L.InnerLo, L.InnerHi});
    if (Terms)
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

void SparseFunctionBuilder::copyParams(Function *Fn, Var *Extra) {
  std::vector<Var *> Ps;
  for (Var *P : F->getParams()) {
    Params[P] = M.createVar(P->getName(), P->getType(), Var::Storage::Param);
    Ps.push_back(Params[P]);
  }
  Ps.push_back(Extra);
  Fn->setParams(Ps);
  C.setExprHook([&](const Expr *Ex) -> const Expr * {
    const auto *R = dyn_cast<VarRefExpr>(Ex);
    auto It = R ? Params.find(R->getVar()) : Params.end();
    return It == Params.end() ? nullptr : B.ref(It->second);
  });
}

const Expr *SparseFunctionBuilder::row(const Affine &Form, unsigned L) {
  const Expr *Sum = nullptr;
  for (const auto &[Mono, Coeff] : Form.Terms) {
    const Expr *Atom = nullptr;
    for (const ownership::Atom &A : Mono) {
      const Expr *Factor = nullptr;
      if (A.Kind == AtomKind::Gathered) {
        const ownership::GatherInfo &G = S.Evaluator->getGather(A.Id);
        Factor = B.index(B.ref(Params[G.Array]), row(G.Position, L));
      } else {
        Var *V = S.AtomVars.at(A);
        Factor = B.ref(V->isParam() ? Params[V] : C.mapVar(V));
      }
      Atom = Atom ? B.mul(Atom, Factor) : Factor;
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
/// `S * i + c` of its counter alone, read in every iteration (and there are
/// at most 8); else empty. Over A selected arrays the rows are encoded
/// `A * element + array`: the form of entry `S * i + c` of array a is
/// `A * S * i + (A * c + a)`, affine too.
static std::vector<long long> affineForms(const SparseLoopShape &Shape,
                                          const SparseLoop &Loop,
                                          const ownership::Atom &Counter) {
  std::vector<long long> Forms;
  if (Loop.Entries.size() > 8 || Loop.guarded() || Loop.Inner)
    return {};
  const long long A = static_cast<long long>(Shape.Arrays.size());
  for (const SparseEntry &E : Loop.Entries) {
    long long Stride = 0;
    for (const auto &[Mono, Coeff] : E.Form.Terms) {
      if (Mono.size() != 1 || !(Mono.front() == Counter))
        return {};
      Stride = Coeff;
    }
    Forms.insert(Forms.end(), {A * Stride, A * E.Form.Const + E.Array});
  }
  return Forms;
}

void SparseFunctionBuilder::declareRows(BlockStmt *Out, unsigned L,
                                        Var *Rows) {
  const SparseLoop &Loop = S.Loops[L];
  std::vector<const Expr *> RowExprs;
  for (const SparseEntry &E : Loop.Entries) {
    RowExprs.push_back(row(E.Form, L));
    if (E.Guard)
      RowExprs.back() =
          B.select(C.clone(E.Guard), RowExprs.back(), B.ref(SkipRow),
                   M.getTypes().getInt());
  }
  Out->append(M.create<DeclStmt>(
      Rows, M.create<InitListExpr>(Rows->getType(), std::move(RowExprs))));
}

Var *SparseFunctionBuilder::gather(BlockStmt *Out, unsigned L, unsigned A,
                                   Var *Rows, bool IsAffine) {
  const SparseLoop &Loop = S.Loops[L];
  const Type *T = elementType(S);
  unsigned First = Loop.firstOf(A), K = Loop.countOf(A);
  const Type *LocalTy = M.getTypes().getArray(T, K);
  Var *XL = M.createVar(Names.unique(S.Arrays[A]->getName() + "_l"), LocalTy);
  std::vector<const Expr *> Gathered;
  for (unsigned J = First; J < First + K; ++J) {
    const SparseEntry &E = Loop.Entries[J];
    const Expr *Load = B.index(B.ref(Params[S.Arrays[A]]),
                               IsAffine ? row(E.Form, L)
                                        : B.index(B.ref(Rows), B.intLit(J)));
    Gathered.push_back(E.Guard ? B.select(C.clone(E.Guard), Load, B.zero(T), T)
                               : Load);
  }
  Out->append(M.create<DeclStmt>(
      XL, M.create<InitListExpr>(LocalTy, std::move(Gathered))));
  return XL;
}

std::vector<const Expr *> SparseFunctionBuilder::termArgs(BlockStmt *Out,
                                                        unsigned L, Var *Rows,
                                                        bool IsAffine) {
  const SparseLoop &Loop = S.Loops[L];
  std::vector<const Expr *> Args;
  for (Var *P : F->getParams())
    if (!llvm::is_contained(S.Arrays, P))
      Args.push_back(B.ref(Params[P]));
  for (Var *V : Loop.Invariants)
    Args.push_back(B.ref(C.mapVar(V)));
  Args.push_back(B.ref(C.mapVar(Loop.Counter)));
  if (Loop.InnerCounter)
    Args.push_back(B.ref(C.mapVar(Loop.InnerCounter)));
  for (unsigned A = 0; A < S.Arrays.size(); ++A)
    if (Loop.countOf(A))
      Args.push_back(B.ref(gather(Out, L, A, Rows, IsAffine)));
  return Args;
}

BlockStmt *SparseFunctionBuilder::iteration(unsigned L, const LoopTerm &Term,
                                            bool IsAffine, Var *Launch) {
  const SparseLoop &Loop = S.Loops[L];
  TypeContext &Types = M.getTypes();
  unsigned K = static_cast<unsigned>(Loop.Entries.size());
  bool Several = S.Arrays.size() > 1;
  const std::string &X = S.Arrays.front()->getName();
  BlockStmt *Out = B.block();
  Var *Rows = nullptr, *Arrays = nullptr;
  if (!IsAffine) {
    Rows = M.createVar(Names.unique(Several ? "rows" : X + "_rows"),
                       Types.getArray(Types.getInt(), K));
    declareRows(Out, L, Rows);
  }
  if (Several && !IsAffine) {
    Arrays = M.createVar(Names.unique("arrays"), Rows->getType());
    std::vector<const Expr *> Ids;
    for (const SparseEntry &E : Loop.Entries)
      Ids.push_back(B.intLit(E.Array));
    Out->append(M.create<DeclStmt>(
        Arrays, M.create<InitListExpr>(Arrays->getType(), std::move(Ids))));
  }
  const Expr *I = Launch ? B.ref(C.mapVar(Loop.Counter)) : nullptr;
  if (Launch) {
    // The rows pass stores the rows and ends the thread.
    std::vector<const Expr *> RowArgs = {B.ref(Launch), I, B.ref(Rows)};
    if (Several)
      RowArgs.push_back(B.ref(Arrays));
    BlockStmt *Done = B.block();
    Done->append(M.create<ReturnStmt>(nullptr));
    Out->append(M.create<IfStmt>(
        M.create<CallExpr>(Types.getBool(), CallExpr::CalleeKind::Intrinsic,
                           "meshad::sparseLoopRows<" + std::to_string(K) + ">",
                           -1, std::move(RowArgs)),
        Done, nullptr));
  }
  std::vector<const Expr *> Args = termArgs(Out, L, Rows, IsAffine);
  Var *HL = M.createVar(Names.unique("hl"), Types.getArray(elementType(S), K * K));
  Out->append(M.create<DeclStmt>(HL, nullptr));
  Args.push_back(B.ref(HL));
  Out->append(M.create<ExprStmt>(M.create<CallExpr>(
      Types.getVoid(), Term.LocalHessian, std::move(Args))));
  std::string Targs = Term.templateArgs(K);
  if (Launch)
    Out->append(helperCall(M, "meshad::sparseLoopDeviceAdd" + Targs,
                           {B.ref(Launch), I, B.ref(HL)}));
  else if (IsAffine)
    Out->append(helperCall(M, "meshad::sparseLoopAffineAdd" + Targs,
                           {B.ref(H), B.ref(HL)}));
  else if (Several)
    Out->append(helperCall(M, "meshad::sparseLoopAdd" + Targs,
                           {B.ref(H), B.ref(Rows), B.ref(Arrays), B.ref(HL)}));
  else
    Out->append(helperCall(M, "meshad::sparseLoopAdd" + Targs,
                           {B.ref(H), B.ref(Rows), B.ref(HL)}));
  return Out;
}

const ForStmt *SparseFunctionBuilder::loopNest(unsigned L, const LoopTerm &Term,
                                            bool IsAffine) {
  const SparseLoop &Loop = S.Loops[L];
  auto Copy = [&](const ForStmt *For, const BlockStmt *Body) {
    auto *New = M.create<ForStmt>(C.clone(For->getInit()),
                                  C.clone(For->getCond()),
                                  C.clone(For->getInc()), Body);
    New->setLoc(For->getLoc());
    return New;
  };
  // The counters are mapped before the body that reads them is built.
  if (!Loop.Inner) {
    C.freshVar(Loop.Counter);
    return Copy(Loop.Loop, iteration(L, Term, IsAffine));
  }
  C.freshVar(Loop.Counter);
  C.freshVar(Loop.InnerCounter);
  const ForStmt *Inner = Copy(Loop.Inner, iteration(L, Term, IsAffine));
  BlockStmt *Outer = B.block();
  Outer->append(Inner);
  return Copy(Loop.Loop, Outer);
}

Function *SparseFunctionBuilder::build(DerivedFunctionSet &Derived,
                                       const std::string &Name,
                                       const std::vector<LoopTerm> &Terms) {
  TypeContext &Types = M.getTypes();
  Function *W = besidePrimal(M, Derived, F, Name, Types.getVoid(),
                             CudaTarget::HostOnly);
  H = M.createVar(Names.unique("H"),
                  Types.getPointer(Types.getOpaque(
                      "meshad::SparseMatrix<" + spellType(elementType(S)) + ">")),
                  Var::Storage::Param);
  copyParams(W, H);
  BlockStmt *Body = B.block();
  for (const DeclStmt *D : neededDecls()) {
    C.freshVar(D->getVar());
    Body->append(C.clone(D));
  }
  std::vector<const Expr *> BeginArgs = {B.ref(H)};
  if (S.Arrays.size() > 1)
    BeginArgs.push_back(B.intLit(static_cast<long long>(S.Arrays.size())));
  Body->append(helperCall(M, "meshad::sparseLoopBegin", BeginArgs));
  for (unsigned L = 0; L < S.Loops.size(); ++L) {
    // An affine loop is announced once, its rows never computed.
    std::vector<long long> Forms =
        affineForms(S, S.Loops[L], S.CounterAtoms[L]);
    if (!Forms.empty()) {
      std::string Targs = Terms[L].templateArgs(Forms.size() / 2);
      Targs.pop_back();
      for (long long V : Forms)
        Targs += ", " + std::to_string(V);
      Body->append(helperCall(M, "meshad::sparseLoopAffine" + Targs + ">",
                              {B.ref(H), C.clone(S.Loops[L].Lo),
                               C.clone(S.Loops[L].Hi)}));
    }
    Body->append(loopNest(L, Terms[L], !Forms.empty()));
    Derived.addCall(W, Terms[L].LocalHessian);
  }
  Body->append(helperCall(M, "meshad::sparseLoopEnd", {B.ref(H)}));
  W->setBody(Body);
  return W;
}

std::string remarkText(const Function &F, const SparseLoopShape &S, unsigned L,
                       const LoopTerm &Term, bool Device) {
  bool IsAffine =
      !Device && !affineForms(S, S.Loops[L], S.CounterAtoms[L]).empty();
  const SparseLoop &Loop = S.Loops[L];
  std::string Reads, Wrt;
  for (const SparseEntry &E : Loop.Entries)
    Reads += (Reads.empty() ? "" : ", ") + S.Arrays[E.Array]->getName() +
             "[" + S.Evaluator->spell(E.Form) + "]" +
             (E.Guard ? " (under a condition)" : "");
  for (const Var *X : S.Arrays)
    Wrt += (Wrt.empty() ? "" : ", ") + X->getName();
  std::string Which =
      S.Loops.size() == 1
          ? "the loop"
          : "loop " + std::to_string(L + 1) + " of " +
                std::to_string(S.Loops.size());
  return "sparse hessian of '" + F.getName() + "' w.r.t. '" + Wrt +
         "': each iteration of " + Which + " over " +
         Loop.Counter->getName() + " reads " + Reads + "; local Hessian of " +
         std::to_string(Loop.Entries.size()) + " entries: " +
         std::to_string(Term.Pattern->NumValues) + " unique values, " +
         std::to_string(Term.pairs()) + " nonzero entries, " +
         (Device
              ? "added by a kernel, one thread per iteration, into CSR slots "
                "(meshad::DeviceSparseMatrix, the pattern built on the first "
                "call from the rows a first pass of the kernel writes, O(nnz), "
                "kept while the loops' bounds stay the same; plain stores "
                "into values with one owner, atomicAdd into shared ones)"
              : std::string(
                    "added into CSR slots (meshad::SparseMatrix, "
                    "the pattern built on the first call from the rows the "
                    "iterations read, O(nnz), kept while they stay the same") +
                    (IsAffine ? "; an affine loop: its bounds recorded and "
                                "compared, its rows computed when the pattern "
                                "is built)"
                              : ")"));
}

} // namespace sparseloop
} // namespace meshad

using namespace meshad::sparseloop;

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

ir::Function *
SparseLoopHessianBuilder::derive(Function *Primal,
                                 const std::vector<unsigned> &XParams,
                                 const std::string &Name,
                                 clang::SourceLocation Loc, bool Device) {
  auto Key = std::make_pair(static_cast<const Function *>(Primal), XParams);
  if (Function *Found = (Device ? DoneDevice : Done)[Key])
    return Found;
  Function *F = unrollInnerLoops(M, *Primal);
  std::vector<const Var *> Xs;
  std::string Spec;
  for (unsigned I : XParams) {
    Xs.push_back(F->getParam(I));
    Spec += (Spec.empty() ? "" : ", ") + Xs.back()->getName();
  }
  SparseLoopShape S;
  clang::SourceLocation At;
  std::string Why;
  if (!analyzeSparseLoops(M, *F, Xs, S, At, Why) ||
      (Device && !fitsDevice(S, At, Why))) {
    Diags.error(At.isValid() ? At : Loc,
                "meshad::hessian(" + F->getName() + ", \"" + Spec + "\", " +
                    (Device ? "meshad::SparseDevice" : "meshad::Sparse") +
                    "): " + Why);
    return nullptr;
  }
  // The terms and their local Hessians are shared by both variants.
  std::vector<LoopTerm> &Terms = TermsOf[Key];
  if (Terms.empty()) {
    Terms.resize(S.Loops.size());
    for (unsigned L = 0; L < S.Loops.size(); ++L)
      if (!deriveTerm(F, S, L, Loc, Terms[L])) {
        Terms.clear();
        return nullptr;
      }
  }
  Function *W = Device ? buildDevice(F, S, Terms, Name)
                       : SparseFunctionBuilder(M, F, S).build(Derived, Name,
                                                              Terms);
  for (unsigned L = 0; L < S.Loops.size(); ++L)
    Diags.remark(Loc, remarkText(*F, S, L, Terms[L], Device));
  (Device ? DoneDevice : Done)[Key] = W;
  return W;
}

bool SparseLoopHessianBuilder::deriveTerm(Function *F, const SparseLoopShape &S,
                                          unsigned L, clang::SourceLocation Loc,
                                          LoopTerm &Term) {
  const SparseLoop &Loop = S.Loops[L];
  std::string TermName =
      F->getName() + "_term" + (L ? std::to_string(L + 1) : "");
  Function *TermF = buildTerm(M, Derived, F, S, Loop, TermName);
  HessianLayout Layout;
  unsigned Param = TermF->getNumParams() - 1;
  for (unsigned A = S.Arrays.size(); A-- > 0;)
    if (unsigned K = Loop.countOf(A))
      Layout.Blocks.insert(Layout.Blocks.begin(),
                           {Param--, 0, K, Loop.firstOf(A), false});
  Layout.Size = static_cast<unsigned>(Loop.Entries.size());
  Term.LocalHessian =
      Hessian.deriveHessian(TermF, Layout, TermName + "_hessian", Loc);
  Term.Pattern =
      Term.LocalHessian ? Hessian.patternOf(Term.LocalHessian) : nullptr;
  if (!Term.Pattern)
    return false;
  Term.Mask = pairMask(*Term.Pattern);
  return true;
}
