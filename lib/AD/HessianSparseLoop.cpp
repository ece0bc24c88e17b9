//===- AD/HessianSparseLoop.cpp - Sparse Hessians of loops ----------------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//

#include "AD/HessianSparseLoop.h"
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

/// The largest number of distinct entries one iteration may read (the
/// pairs' mask has K*K bits).
constexpr unsigned MaxEntries = 8;

/// A problem with the request, at the construct it names.
struct Problem {
  clang::SourceLocation Loc;
  std::string Why;
  bool set(clang::SourceLocation L, std::string W) {
    if (Why.empty()) {
      Loc = L;
      Why = std::move(W);
    }
    return false;
  }
};

const Expr *bare(const Expr *E) {
  while (const auto *C = dyn_cast<CastExpr>(E))
    E = C->getSub();
  return E;
}

bool refersTo(const Expr *E, const Var *V) {
  bool Found = false;
  if (E)
    forEachExpr(E, [&](const Expr *Sub) {
      const auto *R = dyn_cast<VarRefExpr>(Sub);
      Found |= R && R->getVar() == V;
    });
  return Found;
}

/// Calls \p F on every top expression of \p S's statements (nested ones
/// included).
void forEachTopExpr(const Stmt *S,
                    llvm::function_ref<void(const Stmt *, const Expr *)> F) {
  forEachStmt(S, [&](const Stmt *Sub) {
    for (const Expr *E : ownExprs(Sub))
      F(Sub, E);
  });
}

/// The number of references to \p V in \p S's expressions.
unsigned countRefs(const Stmt *S, const Var *V) {
  unsigned N = 0;
  forEachTopExpr(S, [&](const Stmt *, const Expr *E) {
    forEachExpr(E, [&](const Expr *Sub) {
      const auto *R = dyn_cast<VarRefExpr>(Sub);
      N += R && R->getVar() == V;
    });
  });
  return N;
}

/// The location of \p S, else \p Fallback.
clang::SourceLocation locOr(const Stmt *S, clang::SourceLocation Fallback) {
  return S && S->getLoc().isValid() ? S->getLoc() : Fallback;
}

/// The function's shape: declarations, the loop, `return acc;`.
struct LoopShape {
  std::vector<const DeclStmt *> Pre;
  const ForStmt *Loop = nullptr;
  Var *Counter = nullptr;
  /// The iterations [Lo, Hi).
  const Expr *Lo = nullptr, *Hi = nullptr;
  Var *Acc = nullptr;
};

/// The loop `for (int i = Lo; i < Hi; ++i)` (or `i <= Hi - 1`) of \p S, or
/// false with \p P set.
bool matchLoop(Module &M, const Var *X, LoopShape &S, Problem &P) {
  std::optional<CanonicalLoop> C = ReverseNeeds::matchCanonical(*S.Loop);
  const auto *Step =
      C && C->Step ? dyn_cast<IntLitExpr>(bare(C->Step)) : nullptr;
  const auto *Cond = C ? dyn_cast<BinaryExpr>(S.Loop->getCond()) : nullptr;
  const auto *Lhs =
      Cond ? dyn_cast<VarRefExpr>(bare(Cond->getLHS())) : nullptr;
  bool Ok = C && !C->Decrement && (!C->Step || (Step && Step->getValue() == 1));
  Ok = Ok && Lhs && Lhs->getVar() == C->Counter &&
       (Cond->getOp() == BinaryOp::Lt || Cond->getOp() == BinaryOp::Le) &&
       !refersTo(Cond->getRHS(), C->Counter) && !refersTo(Cond->getRHS(), X) &&
       !refersTo(C->Init, X);
  if (!Ok)
    return P.set(S.Loop->getLoc(),
                 "expected the loop `for (int i = lo; i < hi; ++i)` (an "
                 "integer counter counting up by 1, bounds that do not read '" +
                     X->getName() + "')");
  IRBuilder B(M);
  S.Counter = C->Counter;
  S.Lo = C->Init;
  S.Hi = Cond->getOp() == BinaryOp::Le ? B.add(Cond->getRHS(), B.intLit(1))
                                       : Cond->getRHS();
  return true;
}

/// \p F as declarations, the loop and `return acc;`, or false with \p P.
bool matchShape(Module &M, const Function &F, const Var *X, LoopShape &S,
                Problem &P) {
  const std::vector<const Stmt *> &Body = F.getBody()->getBody();
  size_t I = 0;
  for (; I < Body.size() && llvm::isa<DeclStmt>(Body[I]); ++I) {
    S.Pre.push_back(llvm::cast<DeclStmt>(Body[I]));
    if (refersTo(S.Pre.back()->getInit(), X))
      return P.set(locOr(Body[I], F.getLoc()),
                   "'" + X->getName() + "' is read outside the loop");
  }
  const auto *Ret =
      I + 2 == Body.size() ? dyn_cast<ReturnStmt>(Body[I + 1]) : nullptr;
  S.Loop = I < Body.size() ? dyn_cast<ForStmt>(Body[I]) : nullptr;
  const auto *Acc = Ret && Ret->getValue()
                        ? dyn_cast<VarRefExpr>(bare(Ret->getValue()))
                        : nullptr;
  if (!S.Loop || !Acc)
    return P.set(F.getLoc(), "expected declarations, one `for` loop that "
                             "adds the terms into a local, then `return` "
                             "of that local");
  S.Acc = Acc->getVar();
  bool Declared = llvm::any_of(
      S.Pre, [&](const DeclStmt *D) { return D->getVar() == S.Acc; });
  if (!Declared || !S.Acc->getType()->isFloatingScalar())
    return P.set(locOr(Ret, F.getLoc()),
                 "the function must return the floating-point local that "
                 "the loop adds its terms into");
  return matchLoop(M, X, S, P);
}

/// True when \p S leaves the loop around it (a break or continue outside
/// nested loops).
bool leavesLoop(const Stmt *S) {
  if (llvm::isa<BreakStmt>(S) || llvm::isa<ContinueStmt>(S))
    return true;
  if (const auto *B = dyn_cast<BlockStmt>(S))
    return llvm::any_of(B->getBody(), leavesLoop);
  if (const auto *I = dyn_cast<IfStmt>(S))
    return leavesLoop(I->getThen()) ||
           (I->getElse() && leavesLoop(I->getElse()));
  return false;
}

/// Checks that one iteration's work is a term of its own: the accumulator
/// only `acc += term` / `acc -= term`, nothing else carried across
/// iterations (locals before the loop, parameters, memory), no jumps out.
bool checkIterations(const Function &F, const Var *X, const LoopShape &S,
                     Problem &P) {
  const BlockStmt *Body = S.Loop->getBody();
  clang::SourceLocation LoopLoc = locOr(S.Loop, F.getLoc());
  const std::string Acc = "'" + S.Acc->getName() + "'";
  unsigned Adds = 0;
  forEachStmt(Body, [&](const Stmt *Sub) {
    if (llvm::isa<ReturnStmt>(Sub))
      P.set(locOr(Sub, LoopLoc), "a return inside the loop");
    const auto *A = dyn_cast<AssignStmt>(Sub);
    const Var *Root = A ? ActivityAnalysis::getRootVar(A->getLHS()) : nullptr;
    if (!Root)
      return;
    bool Add = A->getOp() == AssignOp::AddAssign ||
               A->getOp() == AssignOp::SubAssign;
    if (Root == S.Acc && Add && llvm::isa<VarRefExpr>(A->getLHS()) &&
        !refersTo(A->getRHS(), S.Acc))
      ++Adds;
    else if (Root == S.Acc)
      P.set(locOr(Sub, LoopLoc),
            Acc + " is updated other than by `" + S.Acc->getName() +
                " += term`: a loop-carried nonlinear dependence (each "
                "iteration must add a term of its own entries)");
    else if (Root->isParam() || Root == X)
      P.set(locOr(Sub, LoopLoc),
            "the loop writes '" + Root->getName() +
                "', which later iterations may read (a loop-carried "
                "dependence)");
  });
  if (leavesLoop(Body))
    P.set(LoopLoc, "a break or continue of the loop: every iteration must "
                   "add its term");
  if (P.Why.empty() && countRefs(Body, S.Acc) != Adds)
    P.set(LoopLoc, Acc + " is read inside the loop: its value carries from "
                         "one iteration to the next (a loop-carried "
                         "dependence)");
  for (const DeclStmt *D : S.Pre)
    if (D->getVar() != S.Acc && P.Why.empty() && countRefs(Body, D->getVar()))
      P.set(LoopLoc, "'" + D->getVar()->getName() +
                         "', declared before the loop, is used in it: "
                         "declare it inside the loop or pass it as a "
                         "parameter");
  for (const Var *Param : F.getParams())
    if (Param->getType()->isPointer() && P.Why.empty() &&
        writesMemoryOf(Body, Param))
      P.set(LoopLoc, "the loop writes the memory of '" + Param->getName() +
                         "', which later iterations may read (a "
                         "loop-carried dependence)");
  return P.Why.empty();
}

/// The entries one iteration reads: x[Stride * i + Offsets[j]].
struct Entries {
  long long Stride = 0;
  std::vector<long long> Offsets;
  /// Each load of x in the loop, to its entry j.
  std::map<const IndexExpr *, unsigned> Local;
};

/// The affine form Stride * i + c of every load of \p X in the loop, from
/// the index forms; false with \p P set at a load that has none.
bool findEntries(Module &M, const Function &F, const Var *X,
                 const LoopShape &S, Entries &E, Problem &P) {
  ownership::IndexEvaluator Ev(F);
  IRBuilder B(M);
  ownership::Eval Counter = Ev.eval(B.ref(S.Counter));
  std::vector<std::pair<const IndexExpr *, long long>> Loads;
  unsigned Refs = countRefs(S.Loop->getBody(), X);
  forEachTopExpr(S.Loop->getBody(), [&](const Stmt *At, const Expr *Top) {
    forEachExpr(Top, [&](const Expr *Sub) {
      const auto *I = dyn_cast<IndexExpr>(Sub);
      const auto *Base = I ? dyn_cast<VarRefExpr>(I->getBase()) : nullptr;
      if (!Base || Base->getVar() != X)
        return;
      ownership::Eval V = Ev.eval(I->getIndex());
      bool Ok = Counter.Ok && V.Ok && Counter.Form.Terms.size() == 1 &&
                V.Form.Terms.size() == 1 &&
                V.Form.Terms.begin()->first ==
                    Counter.Form.Terms.begin()->first &&
                V.Form.Terms.begin()->second > 0;
      if (!Ok) {
        P.set(locOr(At, F.getLoc()),
              "a load of '" + X->getName() + "' whose index is not S * " +
                  S.Counter->getName() + " + c (S > 0 and c literals)" +
                  (V.Ok ? "" : ": " + V.Why));
        return;
      }
      long long Stride = V.Form.Terms.begin()->second;
      if (E.Stride && Stride != E.Stride)
        P.set(locOr(At, F.getLoc()),
              "'" + X->getName() + "' is read with the strides " +
                  std::to_string(E.Stride) + " and " + std::to_string(Stride) +
                  " of " + S.Counter->getName() + "; one stride is supported");
      E.Stride = Stride;
      Loads.push_back({I, V.Form.Const});
    });
  });
  if (P.Why.empty() && Loads.size() != Refs)
    P.set(locOr(S.Loop, F.getLoc()),
          "the loop uses '" + X->getName() +
              "' other than in loads x[S * i + c] (a call or an address)");
  if (P.Why.empty() && Loads.empty())
    P.set(locOr(S.Loop, F.getLoc()),
          "the loop reads no element of '" + X->getName() + "'");
  for (auto &[Load, Offset] : Loads)
    E.Offsets.push_back(Offset);
  std::sort(E.Offsets.begin(), E.Offsets.end());
  E.Offsets.erase(std::unique(E.Offsets.begin(), E.Offsets.end()),
                  E.Offsets.end());
  if (P.Why.empty() && E.Offsets.size() > MaxEntries)
    P.set(locOr(S.Loop, F.getLoc()),
          "an iteration reads " + std::to_string(E.Offsets.size()) +
              " elements of '" + X->getName() + "'; at most " +
              std::to_string(MaxEntries) + " are supported");
  for (auto &[Load, Offset] : Loads)
    E.Local[Load] = static_cast<unsigned>(
        std::lower_bound(E.Offsets.begin(), E.Offsets.end(), Offset) -
        E.Offsets.begin());
  return P.Why.empty();
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

/// <f>_term(params less x..., i, x): one iteration's term as a function of
/// its entries x[0..K).
Function *buildTerm(Module &M, DerivedFunctionSet &Derived, Function *F,
                    const Var *X, const LoopShape &S, const Entries &E) {
  const Type *T = X->getType()->getElement()->getUnqualified();
  TypeContext &Types = M.getTypes();
  Function *Term = besidePrimal(M, Derived, F, F->getName() + "_term", T,
                                F->getTarget());
  IRBuilder B(M);
  IRCloner C(M);
  llvm::DenseMap<const Var *, Var *> Renamed;
  std::vector<Var *> Params;
  for (Var *P : F->getParams())
    if (P != X) {
      Params.push_back(
          M.createVar(P->getName(), P->getType(), Var::Storage::Param));
      Renamed[P] = Params.back();
    }
  Params.push_back(M.createVar(S.Counter->getName(),
                               S.Counter->getType()->getUnqualified(),
                               Var::Storage::Param));
  Renamed[S.Counter] = Params.back();
  Var *NewX = M.createVar(X->getName(), Types.getPointer(Types.getConst(T)),
                          Var::Storage::Param);
  Params.push_back(NewX);
  Term->setParams(Params);
  Var *Acc = M.createVar(S.Acc->getName(), T);
  C.setExprHook([&](const Expr *Ex) -> const Expr * {
    if (const auto *R = dyn_cast<VarRefExpr>(Ex)) {
      auto It = Renamed.find(R->getVar());
      return It == Renamed.end() ? nullptr : B.ref(It->second);
    }
    const auto *I = dyn_cast<IndexExpr>(Ex);
    auto It = I ? E.Local.find(I) : E.Local.end();
    return It == E.Local.end() ? nullptr
                               : B.index(B.ref(NewX), B.intLit(It->second));
  });
  C.setStmtHook([&](const Stmt *St) -> std::optional<const Stmt *> {
    const auto *A = dyn_cast<AssignStmt>(St);
    const auto *L = A ? dyn_cast<VarRefExpr>(A->getLHS()) : nullptr;
    if (!L || L->getVar() != S.Acc)
      return std::nullopt;
    Stmt *New = B.assign(B.ref(Acc), A->getOp(), C.clone(A->getRHS()));
    New->setLoc(St->getLoc());
    return New;
  });
  forEachStmt(S.Loop->getBody(), [&](const Stmt *St) {
    if (const auto *D = dyn_cast<DeclStmt>(St))
      C.freshVar(D->getVar());
  });
  BlockStmt *Body = B.block();
  Body->append(M.create<DeclStmt>(Acc, B.zero(T)));
  for (const Stmt *St : S.Loop->getBody()->getBody())
    if (const Stmt *New = C.clone(St))
      Body->append(New);
  Body->append(M.create<ReturnStmt>(B.ref(Acc)));
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

/// Builds <f>_hessian_sparse: the loop's bounds, sparseLoopBegin, and per
/// iteration the gather, the local Hessian and sparseLoopAdd.
class SparseFunctionBuilder {
public:
  SparseFunctionBuilder(Module &M, Function *F, const Var *X,
                        const LoopShape &S, const Entries &E)
      : M(M), B(M), C(M), F(F), X(X), S(S), E(E) {
    Names.addFunction(*F);
  }
  Function *build(DerivedFunctionSet &Derived, const std::string &Name,
                  Function *LocalHessian, unsigned long long Mask);

private:
  /// The declarations before the loop that its bounds read.
  std::vector<const DeclStmt *> boundDecls() const;
  BlockStmt *iteration(Function *LocalHessian, unsigned long long Mask);

  Module &M;
  IRBuilder B;
  IRCloner C;
  Function *F;
  const Var *X;
  const LoopShape &S;
  const Entries &E;
  NameScope Names;
  llvm::DenseMap<const Var *, Var *> Params;
  Var *H = nullptr;
};

std::vector<const DeclStmt *> SparseFunctionBuilder::boundDecls() const {
  std::vector<const DeclStmt *> Out;
  std::vector<const Expr *> Reads = {S.Lo, S.Hi};
  for (auto It = S.Pre.rbegin(); It != S.Pre.rend(); ++It)
    if (llvm::any_of(Reads, [&](const Expr *R) {
          return refersTo(R, (*It)->getVar());
        })) {
      Out.insert(Out.begin(), *It);
      Reads.push_back((*It)->getInit());
    }
  return Out;
}

BlockStmt *SparseFunctionBuilder::iteration(Function *LocalHessian,
                                            unsigned long long Mask) {
  const Type *T = X->getType()->getElement()->getUnqualified();
  TypeContext &Types = M.getTypes();
  unsigned K = static_cast<unsigned>(E.Offsets.size());
  Var *XL = M.createVar(Names.unique(X->getName() + "_l"),
                        Types.getArray(T, K));
  Var *HL = M.createVar(Names.unique("hl"), Types.getArray(T, K * K));
  Var *I = C.mapVar(S.Counter);
  BlockStmt *Out = B.block();
  Out->append(M.create<DeclStmt>(XL, nullptr));
  for (unsigned J = 0; J < K; ++J) {
    const Expr *At = B.mul(B.intLit(E.Stride), B.ref(I));
    long long Offset = E.Offsets[J];
    At = Offset < 0 ? B.sub(At, B.intLit(-Offset)) : B.add(At, B.intLit(Offset));
    Out->append(B.assign(B.index(B.ref(XL), B.intLit(J)), AssignOp::Assign,
                         B.index(B.ref(Params[X]), At)));
  }
  Out->append(M.create<DeclStmt>(HL, nullptr));
  std::vector<const Expr *> Args;
  for (Var *P : F->getParams())
    if (P != X)
      Args.push_back(B.ref(Params[P]));
  for (Var *V : {I, XL, HL})
    Args.push_back(B.ref(V));
  Out->append(M.create<ExprStmt>(
      M.create<CallExpr>(Types.getVoid(), LocalHessian, std::move(Args))));
  Out->append(helperCall(M,
                         "meshad::sparseLoopAdd<" + std::to_string(K) + ", " +
                             std::to_string(Mask) + "ull>",
                         {B.ref(H), B.ref(I), B.ref(HL)}));
  return Out;
}

Function *SparseFunctionBuilder::build(DerivedFunctionSet &Derived,
                                       const std::string &Name,
                                       Function *LocalHessian,
                                       unsigned long long Mask) {
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
  for (const DeclStmt *D : boundDecls()) {
    C.freshVar(D->getVar());
    Body->append(C.clone(D));
  }
  std::string Begin = "meshad::sparseLoopBegin<" +
                      std::to_string(E.Stride) + ", " + std::to_string(Mask) +
                      "ull";
  for (long long Offset : E.Offsets)
    Begin += ", " + std::to_string(Offset);
  Body->append(helperCall(M, Begin + ">",
                          {B.ref(H), C.clone(S.Lo), C.clone(S.Hi)}));
  C.freshVar(S.Counter);
  auto *Loop = M.create<ForStmt>(C.clone(S.Loop->getInit()),
                                 C.clone(S.Loop->getCond()),
                                 C.clone(S.Loop->getInc()),
                                 iteration(LocalHessian, Mask));
  Loop->setLoc(S.Loop->getLoc());
  Body->append(Loop);
  W->setBody(Body);
  Derived.addCall(W, LocalHessian);
  return W;
}

std::string remarkText(const Function &F, const Var *X, const LoopShape &S,
                       const Entries &E, const HessianPatternInfo &P,
                       unsigned long long Mask) {
  std::string Reads;
  for (long long C : E.Offsets)
    Reads += (Reads.empty() ? "" : ", ") + X->getName() + "[" +
             (E.Stride == 1 ? "" : std::to_string(E.Stride) + "*") +
             S.Counter->getName() +
             (C ? (C > 0 ? " + " : " - ") + std::to_string(C < 0 ? -C : C)
                : "") +
             "]";
  unsigned Pairs = 0;
  for (unsigned long long M = Mask; M; M &= M - 1)
    ++Pairs;
  return "sparse hessian of '" + F.getName() + "' w.r.t. '" + X->getName() +
         "': each iteration of the loop over " + S.Counter->getName() +
         " reads " + Reads + "; local Hessian of " +
         std::to_string(E.Offsets.size()) + " entries: " +
         std::to_string(P.NumValues) + " unique values, " +
         std::to_string(Pairs) +
         " nonzero entries, added into CSR slots (meshad::SparseMatrix, "
         "the pattern built once per loop range, O(n))";
}

} // namespace

ir::Function *SparseLoopHessianBuilder::derive(Function *F, unsigned XParam,
                                               const std::string &Name,
                                               clang::SourceLocation Loc) {
  auto Key = std::make_pair(static_cast<const Function *>(F), XParam);
  if (Function *Found = Done[Key])
    return Found;
  const Var *X = F->getParam(XParam);
  Problem P;
  LoopShape S;
  Entries E;
  if (matchShape(M, *F, X, S, P) && checkIterations(*F, X, S, P))
    findEntries(M, *F, X, S, E, P);
  if (!P.Why.empty()) {
    Diags.error(P.Loc.isValid() ? P.Loc : Loc,
                "meshad::hessian(" + F->getName() + ", \"" + X->getName() +
                    "\", meshad::Sparse): " + P.Why);
    return nullptr;
  }
  Function *Term = buildTerm(M, Derived, F, X, S, E);
  unsigned K = static_cast<unsigned>(E.Offsets.size());
  HessianLayout Layout;
  Layout.Blocks = {{Term->getNumParams() - 1, 0, K, 0, false}};
  Layout.Size = K;
  Function *Local =
      Hessian.deriveHessian(Term, Layout, Term->getName() + "_hessian", Loc);
  const HessianPatternInfo *Pattern = Local ? Hessian.patternOf(Local) : nullptr;
  if (!Pattern)
    return nullptr;
  unsigned long long Mask = pairMask(*Pattern);
  SparseFunctionBuilder Builder(M, F, X, S, E);
  Function *W = Builder.build(Derived, Name, Local, Mask);
  Diags.remark(Loc, remarkText(*F, X, S, E, *Pattern, Mask));
  Done[Key] = W;
  return W;
}
