//===- AD/ElementFunctions.cpp - An element kernel's local functions ------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//

#include "AD/ElementFunctions.h"
#include "AD/Analysis/ReverseNeeds.h"
#include "IR/Builder.h"
#include "IR/Clone.h"
#include "IR/Intrinsics.h"
#include "IR/Traversal.h"

using namespace meshad;
using namespace meshad::ir;
using llvm::dyn_cast;

namespace {

/// Calls \p F on every expression of \p Body's statements, nested ones
/// included.
void forEachExprIn(const Stmt *Body, llvm::function_ref<void(const Expr *)> F) {
  forEachStmt(Body, [&](const Stmt *S) {
    for (const Expr *E : ownExprs(S))
      forEachExpr(E, F);
  });
}

bool refersTo(const Expr *E, const Var *V) {
  bool Found = false;
  forEachExpr(E, [&](const Expr *Sub) {
    const auto *R = dyn_cast<VarRefExpr>(Sub);
    Found |= R && R->getVar() == V;
  });
  return Found;
}

/// The terms of a sum (a + b - c: a, b, -c as (expr, sign)).
void addTerms(const Expr *E, int Sign,
              std::vector<std::pair<const Expr *, int>> &Out) {
  if (const auto *B = dyn_cast<BinaryExpr>(E)) {
    if (B->getOp() == BinaryOp::Add || B->getOp() == BinaryOp::Sub) {
      addTerms(B->getLHS(), Sign, Out);
      addTerms(B->getRHS(), B->getOp() == BinaryOp::Add ? Sign : -Sign, Out);
      return;
    }
  }
  Out.push_back({E, Sign});
}

/// \p E with casts stripped.
const Expr *bare(const Expr *E) {
  while (const auto *C = dyn_cast<CastExpr>(E))
    E = C->getSub();
  return E;
}

/// The value of an integer expression of literals, or none.
std::optional<long long> literalValue(const Expr *E) {
  E = bare(E);
  if (const auto *L = dyn_cast<IntLitExpr>(E))
    return L->getValue();
  const auto *B = dyn_cast<BinaryExpr>(E);
  if (!B)
    return std::nullopt;
  std::optional<long long> L = literalValue(B->getLHS()),
                           R = literalValue(B->getRHS());
  if (!L || !R)
    return std::nullopt;
  switch (B->getOp()) {
  case BinaryOp::Add:
    return *L + *R;
  case BinaryOp::Sub:
    return *L - *R;
  case BinaryOp::Mul:
    return *L * *R;
  default:
    return std::nullopt;
  }
}

/// The factor of `Scale * F` or `F * Scale` (F itself when Scale is 1 and
/// \p E is no product), or null.
const Expr *scaled(const Expr *E, long long Scale) {
  E = bare(E);
  if (const auto *B = dyn_cast<BinaryExpr>(E))
    if (B->getOp() == BinaryOp::Mul) {
      const auto *L = dyn_cast<IntLitExpr>(bare(B->getLHS()));
      const auto *R = dyn_cast<IntLitExpr>(bare(B->getRHS()));
      if (L && L->getValue() == Scale)
        return B->getRHS();
      if (R && R->getValue() == Scale)
        return B->getLHS();
      return nullptr;
    }
  return Scale == 1 ? E : nullptr;
}

/// Rewrites the element's statements into a function of its local DOFs.
class ElementRewriter {
public:
  ElementRewriter(Module &M, const Function &Kernel, const ElementMap &Map)
      : M(M), B(M), C(M), Map(Map) {
    forEachStmt(Kernel.getBody(), [&](const Stmt *S) {
      if (const auto *D = dyn_cast<DeclStmt>(S))
        Defs[D->getVar()] = D->getInit();
      else if (const auto *A = dyn_cast<AssignStmt>(S))
        if (const auto *R = dyn_cast<VarRefExpr>(A->getLHS()))
          Defs[R->getVar()] = A->getRHS();
    });
  }

  /// The local index s*j + k of the load \p I of an array of stride \p
  /// Stride, or null.
  const Expr *localIndex(const IndexExpr *I, const Var *Element,
                         long long Stride);
  /// Loads of \p X (stride \p Stride) read the local array \p NewX.
  void addArray(const Var *X, Var *NewX, long long Stride) {
    Arrays[X] = {NewX, Stride};
  }
  /// The local array of the DOF array \p X.
  Var *localOf(const Var *X) const { return Arrays.lookup(X).first; }
  /// The element function's body; false after \p Error was set.
  BlockStmt *rewrite(const ElementKernelShape &K, Var *NewElement,
                     Var *EnergyLocal, std::string &Error);
  /// Copies refer to \p To instead of \p From (a parameter).
  void rename(const Var *From, Var *To) { Renamed[From] = To; }

private:
  /// The position c*t + j an index v names: j, or null.
  const Expr *localVertex(const Expr *V, const Var *Element);

  Module &M;
  IRBuilder B;
  IRCloner C;
  const ElementMap &Map;
  /// The DOF arrays: their local arrays and strides.
  llvm::DenseMap<const Var *, std::pair<Var *, long long>> Arrays;
  llvm::DenseMap<const Var *, const Expr *> Defs;
  llvm::DenseMap<const Var *, Var *> Renamed;
};

const Expr *ElementRewriter::localVertex(const Expr *V, const Var *Element) {
  V = bare(V);
  if (const auto *R = dyn_cast<VarRefExpr>(V)) {
    auto It = Defs.find(R->getVar());
    if (It == Defs.end() || !It->second)
      return nullptr;
    V = bare(It->second);
  }
  const auto *Load = dyn_cast<IndexExpr>(V);
  const auto *Base = Load ? dyn_cast<VarRefExpr>(Load->getBase()) : nullptr;
  if (!Base || Base->getVar() != Map.IndexArray)
    return nullptr;
  std::vector<std::pair<const Expr *, int>> Terms;
  addTerms(Load->getIndex(), 1, Terms);
  const Expr *J = nullptr;
  bool SawElement = false;
  for (auto [Term, Sign] : Terms) {
    const Expr *T = scaled(Term, Map.Arity);
    const auto *R = T ? dyn_cast<VarRefExpr>(bare(T)) : nullptr;
    if (!SawElement && Sign > 0 && R && R->getVar() == Element) {
      SawElement = true;
      continue;
    }
    if (refersTo(Term, Element))
      return nullptr;
    J = Sign > 0 ? B.add(J, C.clone(Term)) : B.sub(J, C.clone(Term));
  }
  if (!SawElement)
    return nullptr;
  return J ? J : B.intLit(0);
}

const Expr *ElementRewriter::localIndex(const IndexExpr *I,
                                        const Var *Element, long long Stride) {
  std::vector<std::pair<const Expr *, int>> Terms;
  addTerms(I->getIndex(), 1, Terms);
  const Expr *J = nullptr, *K = nullptr;
  for (auto [Term, Sign] : Terms) {
    const Expr *V = scaled(Term, Stride);
    const Expr *Local = J || Sign < 0 || !V ? nullptr : localVertex(V, Element);
    if (Local) {
      J = Local;
      continue;
    }
    const Expr *Copy = C.clone(Term);
    K = Sign > 0 ? B.add(K, Copy) : B.sub(K, Copy);
  }
  if (!J)
    return nullptr;
  // A constant local index is a literal (the Hessian's lanes need one to
  // fold); the builder folds 0 * j and 0 + k to null, element 0.
  const Expr *Scaled = B.mul(B.intLit(Stride), J);
  if (std::optional<long long> V = literalValue(J)) // x[3 * 2 + k]: x[6 + k]
    Scaled = *V ? B.intLit(Stride * *V) : nullptr;
  const Expr *Index = B.add(Scaled, K);
  if (!Index)
    return B.intLit(0);
  if (std::optional<long long> V = literalValue(Index))
    return B.intLit(*V);
  return Index;
}

/// True for `atomicAdd(E, v)` / `atomicAdd(&E[0], v)` into \p Energy.
const CallExpr *energyAdd(const Stmt *S, const Var *Energy) {
  const auto *ES = dyn_cast<ExprStmt>(S);
  const auto *Call = ES ? dyn_cast<CallExpr>(ES->getExpr()) : nullptr;
  if (!Call || Call->getName() != "atomicAdd" || Call->getNumArgs() != 2)
    return nullptr;
  const Expr *To = bare(Call->getArg(0));
  if (const auto *U = dyn_cast<UnaryExpr>(To))
    if (U->getOp() == UnaryOp::AddrOf)
      if (const auto *I = dyn_cast<IndexExpr>(U->getSub())) {
        const auto *Zero = dyn_cast<IntLitExpr>(bare(I->getIndex()));
        To = Zero && Zero->getValue() == 0 ? I->getBase() : nullptr;
      }
  const auto *R = To ? dyn_cast<VarRefExpr>(To) : nullptr;
  return R && R->getVar() == Energy ? Call : nullptr;
}

BlockStmt *ElementRewriter::rewrite(const ElementKernelShape &K,
                                    Var *NewElement, Var *EnergyLocal,
                                    std::string &Error) {
  C.setExprHook([&](const Expr *E) -> const Expr * {
    if (const auto *R = dyn_cast<VarRefExpr>(E)) {
      auto It = Renamed.find(R->getVar());
      return It == Renamed.end() ? nullptr : B.ref(It->second);
    }
    const auto *I = dyn_cast<IndexExpr>(E);
    const auto *Base = I ? dyn_cast<VarRefExpr>(I->getBase()) : nullptr;
    auto Array = Base ? Arrays.find(Base->getVar()) : Arrays.end();
    if (Array == Arrays.end())
      return nullptr;
    auto [NewX, Stride] = Array->second;
    const Expr *Local = localIndex(I, K.Element, Stride);
    if (!Local) {
      if (Error.empty())
        Error = "the load of '" + Base->getVar()->getName() +
                "' is not x[s * v + k] with v = idx[c * t + j] written "
                "out (a computed vertex): select it in a form the "
                "element map shows";
      return nullptr;
    }
    return B.index(B.ref(NewX), Local);
  });
  C.setStmtHook([&](const Stmt *S) -> std::optional<const Stmt *> {
    if (const CallExpr *Add = energyAdd(S, K.Energy)) {
      Stmt *New = B.assign(B.ref(EnergyLocal), AssignOp::AddAssign,
                           C.clone(Add->getArg(1)));
      New->setLoc(S->getLoc());
      return New;
    }
    if (const auto *R = dyn_cast<ReturnStmt>(S)) {
      Stmt *New = M.create<ReturnStmt>(B.ref(EnergyLocal));
      New->setLoc(R->getLoc());
      return New;
    }
    return std::nullopt;
  });
  rename(K.Element, NewElement);
  for (const std::vector<const Stmt *> *List : {&K.Pre, &K.Body})
    for (const Stmt *S : *List)
      forEachStmt(S, [&](const Stmt *Sub) {
        if (const auto *D = dyn_cast<DeclStmt>(Sub))
          if (D->getVar() != K.Element)
            C.freshVar(D->getVar());
      });
  BlockStmt *Out = B.block();
  for (const Stmt *S : K.Pre)
    if (!llvm::isa<DeclStmt>(S) ||
        llvm::cast<DeclStmt>(S)->getVar() != K.Element)
      if (const Stmt *New = C.clone(S))
        Out->append(New);
  Out->append(M.create<DeclStmt>(
      EnergyLocal, B.zero(EnergyLocal->getType())));
  for (const Stmt *S : K.Body)
    if (const Stmt *New = C.clone(S))
      Out->append(New);
  Out->append(M.create<ReturnStmt>(B.ref(EnergyLocal)));
  return Error.empty() ? Out : nullptr;
}

/// The statements before the guard, the guard and the element's statements
/// of \p K (element id \p ElementId); false with \p Why otherwise.
/// True when \p S has a break or continue of the loop around it (not of
/// a loop inside it).
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

/// The element's statements of a kernel whose last statement is the
/// grid-stride loop `for (int t = ...; t < n; t += ...) {...}`.
bool splitGridStride(const ForStmt *Loop, const std::string &ElementId,
                     ElementKernelShape &Shape, std::string &Why) {
  const auto *Init = llvm::dyn_cast_or_null<DeclStmt>(Loop->getInit());
  if (!Init || Init->getVar()->getName() != ElementId) {
    Why = "expected the grid-stride loop to declare the element id '" +
          ElementId + "'";
    return false;
  }
  if (leavesLoop(Loop->getBody())) {
    Why = "a break or continue of the grid-stride loop: an element's work "
          "must not decide whether the thread's next elements run";
    return false;
  }
  Shape.Loop = Loop;
  Shape.Element = Init->getVar();
  Shape.Body = Loop->getBody()->getBody();
  return true;
}

bool splitKernel(const Function &K, const std::string &ElementId,
                 ElementKernelShape &Shape, std::string &Why) {
  const std::vector<const Stmt *> &Body = K.getBody()->getBody();
  size_t I = 0;
  for (; I < Body.size() && llvm::isa<DeclStmt>(Body[I]); ++I) {
    Shape.Pre.push_back(Body[I]);
    Var *V = llvm::cast<DeclStmt>(Body[I])->getVar();
    if (V->getName() == ElementId)
      Shape.Element = V;
  }
  if (I + 1 == Body.size() && llvm::isa<ForStmt>(Body[I]) && !Shape.Element)
    return splitGridStride(llvm::cast<ForStmt>(Body[I]), ElementId, Shape,
                           Why);
  Shape.Guard = I < Body.size() ? dyn_cast<IfStmt>(Body[I]) : nullptr;
  if (!Shape.Element || !Shape.Guard || Shape.Guard->getElse()) {
    Why = "expected declarations (the element id '" + ElementId +
          "' among them), then the element's work under `if (" + ElementId +
          " < n) {...}` or after `if (" + ElementId + " >= n) return;`";
    return false;
  }
  const std::vector<const Stmt *> &Then = Shape.Guard->getThen()->getBody();
  Shape.EarlyReturn = Then.size() == 1 && llvm::isa<ReturnStmt>(Then[0]);
  if (Shape.EarlyReturn) {
    Shape.Body.assign(Body.begin() + I + 1, Body.end());
    return true;
  }
  if (I + 1 != Body.size()) {
    Why = "statements follow the guard `if (" + ElementId +
          " < n) {...}`: put the element's work inside it";
    return false;
  }
  Shape.Body = Then;
  return true;
}

/// The one array the kernel adds its energy into (every write to it an
/// `atomicAdd(E, v)` statement), checking that nothing else is written and
/// that the element's work is per element: no barriers, shared memory,
/// warp collectives. False with \p Why naming what is not.
bool findEnergy(const Function &K, const Var *X, ElementKernelShape &Shape,
                std::string &Why) {
  for (const Var *P : K.getParams()) {
    if (!P->getType()->isPointer() || !writesMemoryOf(K.getBody(), P))
      continue;
    if (P == X || Shape.Energy) {
      Why = "it writes '" + P->getName() + "' besides " +
            (P == X ? "reading it" : "the energy '" +
                                         Shape.Energy->getName() + "'") +
            ": the kernel must only add a local energy into one array with "
            "atomicAdd";
      return false;
    }
    Shape.Energy = const_cast<Var *>(P);
  }
  if (!Shape.Energy) {
    Why = "it adds no energy (expected atomicAdd(E, e) into an array "
          "parameter E)";
    return false;
  }
  unsigned Adds = 0, Uses = 0;
  forEachStmt(K.getBody(), [&](const Stmt *S) {
    if (energyAdd(S, Shape.Energy))
      ++Adds;
    if (const auto *D = dyn_cast<DeclStmt>(S))
      if (D->getVar()->isShared() && Why.empty())
        Why = "it uses the __shared__ '" + D->getVar()->getName() +
              "': an element's work must be its thread's alone";
  });
  forEachExprIn(K.getBody(), [&](const Expr *E) {
    const auto *R = dyn_cast<VarRefExpr>(E);
    Uses += R && R->getVar() == Shape.Energy;
    const auto *C = dyn_cast<CallExpr>(E);
    const IntrinsicInfo *I = C ? lookupIntrinsic(C) : nullptr;
    bool OtherAtomic = I && I->isAtomic() && C->getName() != "atomicAdd";
    if (I && (I->isBarrier() || OtherAtomic || I->has(IF_Collective)) &&
        Why.empty())
      Why = "it calls '" + C->getName() +
            "': an element's work must be its thread's alone";
  });
  if (Why.empty() && Uses != Adds)
    Why = "it uses '" + Shape.Energy->getName() +
          "' other than in `atomicAdd(" + Shape.Energy->getName() +
          ", e);` statements";
  return Why.empty();
}


/// <k>_element (\p Name): the element's energy as a function of the local
/// DOFs of \p E's arrays; null with \p Error set.
Function *buildEnergyFunction(Module &M, DerivedFunctionSet &Derived,
                              Function *K, const ElementFunctions &E,
                              const std::string &Name, std::string &Error) {
  const ElementKernelShape &Shape = E.Shape;
  TypeContext &Types = M.getTypes();
  Function *F = besideKernel(M, Derived, K, Name, E.Value, CudaTarget::Device);
  ElementRewriter R(M, *K, E.map());
  std::vector<Var *> Params;
  for (Var *P : K->getParams()) {
    if (P == Shape.Energy)
      continue;
    auto Array = llvm::find_if(E.Arrays, [&](const ElementArray &A) {
      return K->getParam(A.Param) == P;
    });
    bool Local = Array != E.Arrays.end();
    const Type *Ty =
        Local ? Types.getPointer(Types.getConst(Array->Value)) : P->getType();
    Var *N = M.createVar(P->getName(), Ty, Var::Storage::Param);
    R.rename(P, N);
    if (Local)
      R.addArray(P, N, Array->Stride);
    else
      Params.push_back(N);
  }
  // The element id goes before the local arrays, in E.Arrays' order:
  // (..., int e, const double *x, const double *w).
  Params.push_back(M.createVar(Shape.Element->getName(),
                               Shape.Element->getType()->getUnqualified(),
                               Var::Storage::Param));
  Var *Element = Params.back();
  for (const ElementArray &A : E.Arrays)
    Params.push_back(R.localOf(K->getParam(A.Param)));
  F->setParams(Params);
  Var *Energy = M.createVar(Shape.Energy->getName(), E.Value);
  F->setBody(R.rewrite(Shape, Element, Energy, Error));
  return Error.empty() ? F : nullptr;
}

} // namespace
Function *meshad::besideKernel(Module &M, DerivedFunctionSet &Derived,
                               Function *K, const std::string &Name,
                               const Type *Ret, CudaTarget Target) {
  Function *F = M.createFunction(Name, Ret, Target);
  F->setNamespace(K->getNamespace());
  F->setLoc(K->getLoc());
  // Placed, and its derivatives too, where the kernel's are.
  F->setSourceDecl(K->getSourceDecl());
  Derived.add(DerivedFunctionSet::keyFor(K, Name), F, K);
  return F;
}

/// The element map of \p X that the element functions need, or null with
/// \p Why.
static const ElementMapResult *mapFor(const ElementMapAnalysis &Maps,
                                      const Var *X, std::string &Why) {
  const ElementMapResult &R = Maps.lookup(X);
  if (!R.IsMap)
    Why = "'" + X->getName() + "' is not read through an element map (" +
          R.Reason + ")";
  else if (R.Maps.size() != 1)
    Why = "'" + X->getName() + "' is read through " +
          std::to_string(R.Maps.size()) +
          " index arrays; one index array per kernel is supported";
  else if (!R.Count.Count)
    Why = R.Count.describe();
  return Why.empty() ? &R : nullptr;
}

/// Whether the map \p R of a further DOF array goes through the index array,
/// arity and element count of \p First's; else \p Why.
static bool sameMap(const ElementMapResult &First, const ElementMapResult &R,
                    const Var *X, std::string &Why) {
  const ElementMap &A = First.Maps.front(), &B = R.Maps.front();
  if (A.IndexArray == B.IndexArray && A.Arity == B.Arity &&
      First.ElementId == R.ElementId && First.describeCount() == R.describeCount())
    return true;
  Why = "'" + X->getName() + "' is read through " + B.IndexArray->getName() +
        ", another index array or element count than " +
        A.IndexArray->getName() + "'s: one index array per element is "
        "supported";
  return false;
}

bool ElementExtractor::analyze(const Function &K,
                               const std::vector<unsigned> &XParams,
                               ElementFunctions &Out, std::string &Why) {
  Out = ElementFunctions();
  ElementMapAnalysis Maps(K);
  for (unsigned XParam : XParams) {
    const Var *X = K.getParam(XParam);
    const ElementMapResult *R = mapFor(Maps, X, Why);
    if (!R || (!Out.Arrays.empty() && !sameMap(Out.Map, *R, X, Why)))
      return false;
    if (Out.Arrays.empty())
      Out.Map = *R;
    Out.Arrays.push_back(
        {XParam, R->Stride, X->getType()->getElement()->getUnqualified()});
  }
  const Var *X = K.getParam(XParams.front());
  if (!splitKernel(K, Out.Map.ElementId, Out.Shape, Why) ||
      !findEnergy(K, X, Out.Shape, Why))
    return false;
  for (const ElementArray &A : Out.Arrays)
    if (K.getParam(A.Param) == Out.Shape.Energy) {
      Why = "the energy '" + Out.Shape.Energy->getName() + "' is a DOF array";
      return false;
    }
  Out.Value = Out.Arrays.front().Value;
  return true;
}

bool ElementExtractor::extractEnergy(Function *K,
                                     const std::vector<unsigned> &XParams,
                                     ElementFunctions &Out, std::string &Why) {
  if (!analyze(*K, XParams, Out, Why))
    return false;
  // Made once per kernel and arrays: a Hessian and a gradient of one kernel
  // share it; several local arrays are named: <k>_element_x_w.
  std::string Name = K->getName() + "_element";
  if (XParams.size() > 1)
    for (unsigned XParam : XParams)
      Name += "_" + K->getParam(XParam)->getName();
  Out.Energy = Derived.lookup(DerivedFunctionSet::keyFor(K, Name));
  if (Out.Energy)
    return true;
  size_t Before = Derived.entries().size();
  Out.Energy = buildEnergyFunction(M, Derived, K, Out, Name, Why);
  if (!Out.Energy)
    Derived.truncate(Before); // never emitted half-built
  return Out.Energy != nullptr;
}

Function *ElementExtractor::derivePullback(ElementFunctions &Out,
                                           clang::SourceLocation Loc) {
  // The local arrays (the last parameters) active and private: plain adds
  // into the caller's local gradients (CUDA atomics need global or shared
  // memory).
  std::vector<bool> Selected(Out.Energy->getNumParams(), false);
  std::fill(Selected.end() - Out.Arrays.size(), Selected.end(), true);
  Out.Gradient = Reverse.derivePullback(Out.Energy, Selected, Selected, Loc);
  if (Out.Gradient)
    Out.Gradient->setName(Out.Energy->getName() + "_grad");
  return Out.Gradient;
}
