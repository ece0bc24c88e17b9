//===- AD/HessianLanes.cpp - A Hessian-vector product in k lanes ----------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// expandHessianLanes: every statement of the HVP that computes a tangent
/// (declares or writes a variable with the tangent role, or calls with
/// tangent arguments: pushforwards, tangent tapes) is copied once per lane,
/// each copy with its own tangent variables (`_d2_s` becomes `_d2_s_0`,
/// `_d2_s_1`...); the direction of lane j is e_j, spelled as literals; the
/// adds into a result (`_d2_d_x[i] += v`) become adds into the Hessian
/// entry of lane j (`H[i * k + j] += v`), guarded when the element is not a
/// constant of the selected range. Statements that only read a tangent
/// (the `.value` of a pushforward's pair) read lane 0.
///
//===----------------------------------------------------------------------===//

#include "AD/Analysis/Activity.h"
#include "AD/Analysis/ReverseNeeds.h"
#include "AD/Hessian.h"
#include "IR/Builder.h"
#include "IR/Clone.h"
#include "IR/Intrinsics.h"
#include "IR/NameScope.h"
#include "IR/Traversal.h"

#include "llvm/ADT/SmallPtrSet.h"

#include <memory>

using namespace meshad;
using namespace meshad::ir;
using llvm::dyn_cast;
using llvm::isa;

namespace {

/// An add into a result of the HVP: which block, which element (null for
/// a scalar parameter), what value.
struct ResultAdd {
  unsigned Block;
  const Expr *Index;
  const Expr *Value;
};

class LaneExpander {
public:
  LaneExpander(Module &M, Function &H, unsigned NumPrimal,
               const HessianLayout &L, Var *HParam, DiagnosticSink &Diags,
               clang::SourceLocation Loc)
      : M(M), B(M), H(H), NumPrimal(NumPrimal), L(L), HParam(HParam),
        Diags(Diags), Loc(Loc) {}

  bool run();

private:
  bool collect();
  bool localizeWrittenDirections();
  void inlinePointerAliases();
  void makeLanes();
  std::optional<const Stmt *> expand(const Stmt *S);
  bool mentionsLanes(const Stmt *S) const;
  bool writesLanes(const Stmt *S) const;
  bool readsValuesOnly(const Stmt *S) const;
  std::vector<const Var *> repeatedWrites(const Stmt *S) const;
  const Expr *copyOf(Var *V);
  const Stmt *expandWithCopies(const Stmt *S,
                               const std::vector<const Var *> &Roots);
  const Stmt *unexpected(const Stmt *S);
  const Expr *laneExpr(const Expr *E, unsigned Lane);
  std::optional<const Stmt *> laneStmt(const Stmt *S, unsigned Lane);
  std::optional<ResultAdd> matchResultAdd(const Stmt *S) const;
  std::optional<ResultAdd> matchResultTarget(const Expr *Target,
                                             const Expr *Value) const;
  const Expr *direction(unsigned Block, const Expr *Index, unsigned Lane);
  const Stmt *storeEntry(const ResultAdd &R, unsigned Lane);
  bool checkNoLeftovers();
  void fail(const std::string &Msg);

  Module &M;
  IRBuilder B;
  Function &H;
  unsigned NumPrimal;
  const HessianLayout &L;
  Var *HParam;
  DiagnosticSink &Diags;
  clang::SourceLocation Loc;
  bool Failed = false;
  /// Direction and result parameters of the HVP, to their block.
  llvm::DenseMap<const Var *, unsigned> DirBlock, ResBlock;
  llvm::SmallPtrSet<const Var *, 32> LaneVars;
  std::vector<std::unique_ptr<IRCloner>> Lanes;
  /// Names of the copies that lanes 1.. update instead of shared scalars.
  NameScope CopyNames;
  bool CopyNamesSeeded = false;
};

} // namespace

void LaneExpander::fail(const std::string &Msg) {
  if (!Failed)
    Diags.error(Loc, "meshad::hessian of '" + H.getName() + "': " + Msg);
  Failed = true;
}

bool LaneExpander::collect() {
  // The HVP's parameters: the primal's, the directions, then the results,
  // both in parameter order of the selected parameters.
  std::vector<unsigned> BlockOfParam(NumPrimal, ~0u);
  for (unsigned I = 0; I < L.Blocks.size(); ++I)
    BlockOfParam[L.Blocks[I].Param] = I;
  unsigned NumSel = L.Blocks.size();
  if (H.getNumParams() != NumPrimal + 2 * NumSel) {
    fail("its Hessian-vector product has an unexpected signature");
    return false;
  }
  unsigned R = 0;
  for (unsigned P = 0; P < NumPrimal; ++P) {
    if (BlockOfParam[P] == ~0u)
      continue;
    DirBlock[H.getParam(NumPrimal + R)] = BlockOfParam[P];
    ResBlock[H.getParam(NumPrimal + NumSel + R)] = BlockOfParam[P];
    ++R;
  }
  forEachStmt(H.getBody(), [&](const Stmt *S) {
    const auto *D = dyn_cast<DeclStmt>(S);
    if (!D || !D->getVar()->getRoles().has(VarRoles::Tangent))
      return;
    if (D->getVar()->getType()->isPointer())
      fail("a pointer into a selected array ('" + D->getVar()->getName() +
           "') is not supported yet; index the parameter itself");
    LaneVars.insert(D->getVar());
  });
  // A pushforward's pair computed from the directions holds each lane's
  // own tangent: one per lane too (the statements that read only its
  // `.value` still read lane 0's).
  for (bool Changed = true; Changed;) {
    Changed = false;
    forEachStmt(H.getBody(), [&](const Stmt *S) {
      const auto *D = dyn_cast<DeclStmt>(S);
      if (D && D->getVar()->getType()->isPair() &&
          !LaneVars.count(D->getVar()) && mentionsLanes(S))
        Changed |= LaneVars.insert(D->getVar()).second;
    });
  }
  return !Failed;
}

/// A scalar direction that the HVP assigns (the primal overwrites its
/// parameter, `a -= w`, so the tangent changes too) becomes a local
/// tangent initialised with it and used instead, which the lanes copy like
/// any tangent. True when there was one.
bool LaneExpander::localizeWrittenDirections() {
  NameScope Names;
  Names.addFunction(H);
  llvm::DenseMap<const Var *, Var *> Local;
  BlockStmt *Body = B.block();
  for (Var *P : H.getParams()) {
    auto It = DirBlock.find(P);
    if (It == DirBlock.end() || !L.Blocks[It->second].Scalar ||
        !assignsVar(H.getBody(), P))
      continue;
    Var *V = M.createVar(Names.unique(P->getName() + "_v"),
                         P->getType()->getUnqualified(), Var::Storage::Local,
                         VarRoles(VarRoles::Tangent));
    Local[P] = V;
    Body->append(B.decl(V, B.ref(P)));
  }
  if (Local.empty())
    return false;
  IRCloner C(M);
  C.setExprHook([&](const Expr *E) -> const Expr * {
    const auto *R = dyn_cast<VarRefExpr>(E);
    auto It = R ? Local.find(R->getVar()) : Local.end();
    return It == Local.end() ? nullptr : B.ref(It->second);
  });
  for (const Stmt *S : H.getBody()->getBody())
    if (const Stmt *New = C.clone(S))
      Body->append(New);
  H.setBody(Body);
  return true;
}

namespace {

/// A pointer local of the HVP that aliases a direction or result
/// parameter: `_d2_ptr = _d2_q;`, `_d2_d_cur = _d2_d_p + 1;`.
struct PointerAlias {
  Var *Param;
  long long Offset;
  const Stmt *Def;
};

/// \p E as `P`, `P + c` or `P - c` with a variable P: P and c.
std::optional<std::pair<Var *, long long>> pointerPlusLiteral(const Expr *E) {
  while (const auto *C = dyn_cast<CastExpr>(E))
    E = C->getSub();
  long long Offset = 0;
  if (const auto *Bin = dyn_cast<BinaryExpr>(E)) {
    const auto *Lit = dyn_cast<IntLitExpr>(Bin->getRHS());
    if (!Lit || (Bin->getOp() != BinaryOp::Add && Bin->getOp() != BinaryOp::Sub))
      return std::nullopt;
    Offset = Bin->getOp() == BinaryOp::Add ? Lit->getValue() : -Lit->getValue();
    E = Bin->getLHS();
    while (const auto *C = dyn_cast<CastExpr>(E))
      E = C->getSub();
  }
  const auto *R = dyn_cast<VarRefExpr>(E);
  if (!R)
    return std::nullopt;
  return std::make_pair(R->getVar(), Offset);
}

/// The statements of \p Body that assign \p V or take its address.
unsigned writesOf(const Stmt *Body, const Var *V) {
  unsigned N = 0;
  forEachStmt(Body, [&](const Stmt *S) {
    if (const auto *A = dyn_cast<AssignStmt>(S))
      if (const auto *L = dyn_cast<VarRefExpr>(A->getLHS()))
        N += L->getVar() == V;
    if (const auto *D = dyn_cast<DeclStmt>(S))
      N += D->getVar() == V && D->getInit() && !isa<InitListExpr>(D->getInit());
    for (const Expr *E : ownExprs(S))
      forEachExpr(E, [&](const Expr *X) {
        const auto *U = dyn_cast<UnaryExpr>(X);
        const auto *R = U && U->getOp() == UnaryOp::AddrOf
                            ? dyn_cast<VarRefExpr>(U->getSub())
                            : nullptr;
        N += R && R->getVar() == V ? 2 : 0;
      });
  });
  return N;
}

/// The pointer locals of \p H set once, at its top level, to a parameter
/// from \p FirstTarget on (a direction or a result) plus a literal, or to
/// another such local.
llvm::DenseMap<const Var *, PointerAlias> findPointerAliases(const Function &H,
                                                             unsigned FirstTarget) {
  llvm::DenseMap<const Var *, PointerAlias> Aliases;
  auto Consider = [&](Var *V, const Expr *Value, const Stmt *Def) {
    auto Form = Value && V->getType()->isPointer() && !V->isParam()
                    ? pointerPlusLiteral(Value)
                    : std::nullopt;
    if (!Form || writesOf(H.getBody(), V) != 1)
      return;
    auto [P, Offset] = *Form;
    if (auto It = Aliases.find(P); It != Aliases.end()) {
      P = It->second.Param;
      Offset += It->second.Offset;
    } else if (!P->isParam() || llvm::find(H.getParams(), P) -
                                        H.getParams().begin() <
                                    FirstTarget) {
      return;
    }
    Aliases[V] = PointerAlias{P, Offset, Def};
  };
  for (const Stmt *S : H.getBody()->getBody()) {
    if (const auto *A = dyn_cast<AssignStmt>(S);
        A && A->getOp() == AssignOp::Assign)
      if (const auto *L = dyn_cast<VarRefExpr>(A->getLHS()))
        Consider(L->getVar(), A->getRHS(), S);
    if (const auto *D = dyn_cast<DeclStmt>(S))
      Consider(D->getVar(), D->getInit(), S);
  }
  return Aliases;
}

} // namespace

/// Pointer locals that the HVP sets once, at its top level, to a direction
/// or result parameter plus a literal (a primal `const double *ptr = q +
/// 1;` gives `_d2_ptr = _d2_q + 1;` and `_d2_d_ptr = _d2_d_q + 1;`) are
/// replaced by the parameter (`_d2_ptr[i]` becomes `_d2_q[i + 1]`), which
/// the lanes know how to expand.
void LaneExpander::inlinePointerAliases() {
  llvm::DenseMap<const Var *, PointerAlias> Aliases =
      findPointerAliases(H, NumPrimal);
  if (Aliases.empty())
    return;
  auto Shifted = [&](const Expr *Index, long long Offset) -> const Expr * {
    if (const auto *Lit = dyn_cast<IntLitExpr>(Index))
      return B.intLit(Lit->getValue() + Offset);
    if (!Offset)
      return Index;
    return Offset > 0 ? B.add(Index, B.intLit(Offset))
                      : B.sub(Index, B.intLit(-Offset));
  };
  IRCloner C(M);
  C.setExprHook([&](const Expr *E) -> const Expr * {
    const Expr *Base = nullptr, *Index = nullptr;
    if (const auto *I = dyn_cast<IndexExpr>(E)) {
      Base = I->getBase();
      Index = I->getIndex();
    } else if (const auto *U = dyn_cast<UnaryExpr>(E);
               U && U->getOp() == UnaryOp::Deref) {
      Base = U->getSub();
    }
    const auto *R = dyn_cast<VarRefExpr>(Base ? Base : E);
    auto It = R ? Aliases.find(R->getVar()) : Aliases.end();
    if (It == Aliases.end())
      return nullptr;
    const PointerAlias &A = It->second;
    if (!Base)
      return Shifted(B.ref(A.Param), A.Offset);
    return B.index(B.ref(A.Param),
                   Shifted(Index ? C.clone(Index) : B.intLit(0), A.Offset));
  });
  C.setStmtHook([&](const Stmt *S) -> std::optional<const Stmt *> {
    const auto *D = dyn_cast<DeclStmt>(S);
    const auto *A = dyn_cast<AssignStmt>(S);
    const auto *L = A ? dyn_cast<VarRefExpr>(A->getLHS()) : nullptr;
    const Var *V = D ? D->getVar() : L ? L->getVar() : nullptr;
    if (V && Aliases.count(V) && (D || Aliases.find(V)->second.Def == S))
      return static_cast<const Stmt *>(nullptr);
    return std::nullopt;
  });
  H.setBody(C.cloneBlock(H.getBody()));
}

void LaneExpander::makeLanes() {
  NameScope Names;
  Names.addFunction(H);
  for (unsigned J = 0; J < L.Size; ++J) {
    auto C = std::make_unique<IRCloner>(M);
    forEachStmt(H.getBody(), [&](const Stmt *S) {
      const auto *D = dyn_cast<DeclStmt>(S);
      if (D && LaneVars.count(D->getVar()))
        C->freshVar(D->getVar())
            ->setName(Names.unique(D->getVar()->getName() + "_" +
                                   std::to_string(J)));
    });
    C->setExprHook([this, J](const Expr *E) { return laneExpr(E, J); });
    C->setStmtHook([this, J](const Stmt *S) { return laneStmt(S, J); });
    Lanes.push_back(std::move(C));
  }
}

bool LaneExpander::mentionsLanes(const Stmt *S) const {
  if (const auto *D = dyn_cast<DeclStmt>(S))
    if (LaneVars.count(D->getVar()))
      return true;
  bool Found = false;
  for (const Expr *E : ownExprs(S))
    forEachExpr(E, [&](const Expr *X) {
      const auto *R = dyn_cast<VarRefExpr>(X);
      if (R && (LaneVars.count(R->getVar()) || DirBlock.count(R->getVar()) ||
                ResBlock.count(R->getVar())))
        Found = true;
    });
  return Found;
}

bool LaneExpander::writesLanes(const Stmt *S) const {
  if (const auto *D = dyn_cast<DeclStmt>(S))
    return LaneVars.count(D->getVar());
  if (const auto *A = dyn_cast<AssignStmt>(S)) {
    const Var *Root = ActivityAnalysis::getRootVar(A->getLHS());
    return Root && (LaneVars.count(Root) || ResBlock.count(Root));
  }
  return isa<ExprStmt>(S);
}

bool LaneExpander::readsValuesOnly(const Stmt *S) const {
  // Lane variables read only as `pair.value` (the same in every lane).
  llvm::SmallPtrSet<const Expr *, 8> Values;
  bool Ok = true;
  for (const Expr *E : ownExprs(S))
    forEachExpr(E, [&](const Expr *X) {
      if (const auto *Mem = dyn_cast<MemberExpr>(X))
        if (Mem->getField() == "value")
          Values.insert(Mem->getBase());
      const auto *R = dyn_cast<VarRefExpr>(X);
      if (R && LaneVars.count(R->getVar()) && !Values.count(X))
        Ok = false;
    });
  return Ok;
}

const Stmt *LaneExpander::unexpected(const Stmt *S) {
  const Var *To = nullptr;
  if (const auto *D = dyn_cast<DeclStmt>(S))
    To = D->getVar();
  else if (const auto *A = dyn_cast<AssignStmt>(S))
    To = ActivityAnalysis::getRootVar(A->getLHS());
  fail("internal error: a statement that computes no tangent reads one" +
       (To ? " ('" + To->getName() + "')" : std::string()));
  return S;
}

/// The variable that a call statement copied once per lane would update
/// once per lane: memory other than the lane's own tangents that the
/// callee writes through a pointer argument (the primal of a reference
/// parameter, a first-order adjoint). Null when there is none.
std::vector<const Var *>
LaneExpander::repeatedWrites(const Stmt *S) const {
  const Expr *Top = nullptr;
  if (const auto *E = dyn_cast<ExprStmt>(S))
    Top = E->getExpr();
  else if (const auto *D = dyn_cast<DeclStmt>(S))
    Top = D->getInit(); // A pushforward's pair, one per lane.
  else if (const auto *A = dyn_cast<AssignStmt>(S))
    Top = A->getRHS();
  const auto *C = Top ? dyn_cast<CallExpr>(Top) : nullptr;
  const Function *Callee = C ? C->getUserCallee() : nullptr;
  std::vector<const Var *> Roots;
  if (!Callee || !Callee->getBody())
    return Roots;
  for (unsigned I = 0; I < C->getNumArgs() && I < Callee->getNumParams(); ++I) {
    const Var *Root = ActivityAnalysis::getRootVar(C->getArg(I));
    if (C->getArg(I)->getType()->isIndexable() && Root &&
        !LaneVars.count(Root) && !ResBlock.count(Root) &&
        writesMemoryOf(Callee->getBody(), Callee->getParam(I)) &&
        !llvm::is_contained(Roots, Root))
      Roots.push_back(Root);
  }
  return Roots;
}

/// True for the variables a lane can copy: scalars, vectors (double3) and
/// small local arrays.
static bool copyable(const Type *Ty) {
  return Ty->isFloatingScalar() || Ty->isVector() ||
         (Ty->isArray() && Ty->getElement()->isFloatingScalar() &&
          Ty->getCount() <= 64);
}

std::optional<const Stmt *> LaneExpander::expand(const Stmt *S) {
  if (isa<BlockStmt, IfStmt, ForStmt, WhileStmt, DoStmt>(S) ||
      !mentionsLanes(S))
    return std::nullopt; // Copied, its nested statements expanded.
  if (!writesLanes(S))
    return readsValuesOnly(S) ? Lanes[0]->clone(S) : unexpected(S);
  std::vector<const Var *> Roots = repeatedWrites(S);
  for (const Var *V : Roots)
    if (!copyable(V->getType())) {
      fail("a call that computes tangents also updates '" + V->getName() +
           "', and would run once per selected input; a function that "
           "updates memory other than a local scalar, vector or array of "
           "at most 64 values is not supported here yet (return the "
           "value instead)");
      return S;
    }
  if (!Roots.empty())
    return expandWithCopies(S, Roots);
  BlockStmt *Copies = B.block();
  for (unsigned J = 0; J < L.Size; ++J)
    if (const Stmt *C = Lanes[J]->clone(S))
      Copies->append(C);
  return Copies;
}

/// The value of \p V to initialise a copy with (`{q[0], q[1]}` for an
/// array).
const Expr *LaneExpander::copyOf(Var *V) {
  if (!V->getType()->isArray())
    return B.ref(V);
  std::vector<const Expr *> Elements;
  for (unsigned I = 0; I < V->getType()->getCount(); ++I)
    Elements.push_back(B.index(B.ref(V), B.intLit(I)));
  return M.create<InitListExpr>(V->getType()->getUnqualified(),
                                std::move(Elements));
}

/// A call statement that also updates the locals \p Roots, scalars or
/// small arrays (a primal a helper updates through a reference or a
/// pointer, a first-order adjoint that a pullback's pushforward adds
/// into): lane 0 updates them; lanes
/// 1.. get copies of their values before the call, so that each lane sees
/// the same inputs and the update happens once.
const Stmt *
LaneExpander::expandWithCopies(const Stmt *S,
                               const std::vector<const Var *> &Roots) {
  if (!CopyNamesSeeded)
    CopyNames.addFunction(H);
  CopyNamesSeeded = true;
  BlockStmt *Out = B.block();
  std::vector<llvm::DenseMap<const Var *, Var *>> Copies(L.Size);
  for (unsigned J = 1; J < L.Size; ++J)
    for (const Var *V : Roots) {
      Var *C = M.createVar(
          CopyNames.unique(V->getName() + "_" + std::to_string(J)),
          V->getType()->getUnqualified(), Var::Storage::Local, V->getRoles());
      Copies[J][V] = C;
      Out->append(B.decl(C, copyOf(const_cast<Var *>(V))));
    }
  for (unsigned J = 0; J < L.Size; ++J) {
    const Stmt *Lane = Lanes[J]->clone(S);
    if (!Lane)
      continue;
    if (J) {
      IRCloner Rename(M);
      Rename.setExprHook([&](const Expr *E) -> const Expr * {
        const auto *R = dyn_cast<VarRefExpr>(E);
        auto It = R ? Copies[J].find(R->getVar()) : Copies[J].end();
        return It == Copies[J].end() ? nullptr : B.ref(It->second);
      });
      Lane = Rename.clone(Lane);
    }
    Out->append(Lane);
  }
  return Out;
}

const Expr *LaneExpander::direction(unsigned Block, const Expr *Index,
                                    unsigned Lane) {
  const Type *Ty = H.getReturnType()->isVoid()
                       ? HParam->getType()->getElement()
                       : H.getReturnType();
  const HessianBlock &Of = L.Blocks[Block];
  if (Lane < Of.Offset || Lane >= Of.Offset + (Of.End - Of.Begin))
    return B.floatLit(Ty, 0.0);
  if (Of.Scalar)
    return B.floatLit(Ty, 1.0);
  long long Element = Of.Begin + (Lane - Of.Offset);
  if (const auto *I = dyn_cast<IntLitExpr>(Index))
    return B.floatLit(Ty, I->getValue() == Element ? 1.0 : 0.0);
  return B.select(B.binary(BinaryOp::Eq, Index, B.intLit(Element)),
                  B.floatLit(Ty, 1.0), B.floatLit(Ty, 0.0), Ty);
}

const Expr *LaneExpander::laneExpr(const Expr *E, unsigned Lane) {
  if (const auto *I = dyn_cast<IndexExpr>(E))
    if (const auto *R = dyn_cast<VarRefExpr>(I->getBase())) {
      auto It = DirBlock.find(R->getVar());
      if (It != DirBlock.end())
        return direction(It->second, Lanes[Lane]->clone(I->getIndex()), Lane);
    }
  if (const auto *R = dyn_cast<VarRefExpr>(E)) {
    auto It = DirBlock.find(R->getVar());
    if (It != DirBlock.end() && L.Blocks[It->second].Scalar)
      return direction(It->second, nullptr, Lane);
    auto Res = ResBlock.find(R->getVar());
    if (It != DirBlock.end() || Res != ResBlock.end()) {
      unsigned Block = It != DirBlock.end() ? It->second : Res->second;
      fail("the selected array '" +
           H.getParam(L.Blocks[Block].Param)->getName() +
           "' is passed to a function or used as a pointer; the Hessian "
           "mode supports indexing it directly (x[i]) only, for now");
    }
  }
  return nullptr;
}

std::optional<ResultAdd>
LaneExpander::matchResultTarget(const Expr *Target, const Expr *Value) const {
  const Expr *Base = nullptr, *Index = nullptr;
  if (const auto *I = dyn_cast<IndexExpr>(Target)) {
    Base = I->getBase();
    Index = I->getIndex();
  } else if (const auto *U = dyn_cast<UnaryExpr>(Target)) {
    if (U->getOp() == UnaryOp::Deref)
      Base = U->getSub();
  }
  const auto *R = Base ? dyn_cast<VarRefExpr>(Base) : nullptr;
  auto It = R ? ResBlock.find(R->getVar()) : ResBlock.end();
  if (It == ResBlock.end())
    return std::nullopt;
  return ResultAdd{It->second, Index, Value};
}

std::optional<ResultAdd> LaneExpander::matchResultAdd(const Stmt *S) const {
  if (const auto *A = dyn_cast<AssignStmt>(S)) {
    if (!isAdditive(A->getOp()))
      return std::nullopt;
    return matchResultTarget(A->getLHS(), A->getRHS());
  }
  // An add of the intrinsic table (meshad::atomicAccumulate(&r[i], v)).
  const auto *E = dyn_cast<ExprStmt>(S);
  const auto *C = E ? dyn_cast<CallExpr>(E->getExpr()) : nullptr;
  const IntrinsicInfo *I = C ? lookupIntrinsic(C) : nullptr;
  if (!I || !I->accumulates() || I->AddrArg < 0 || C->getNumArgs() != 2)
    return std::nullopt;
  const Expr *Addr = C->getArg(I->AddrArg);
  const Expr *Target = nullptr;
  if (const auto *U = dyn_cast<UnaryExpr>(Addr); U && U->getOp() == UnaryOp::AddrOf)
    Target = U->getSub();
  else if (isa<VarRefExpr>(Addr))
    Target = M.create<UnaryExpr>(Addr->getType()->getElement(),
                                 UnaryOp::Deref, Addr);
  return Target ? matchResultTarget(Target, C->getArg(1 - I->AddrArg))
                : std::nullopt;
}

const Stmt *LaneExpander::storeEntry(const ResultAdd &R, unsigned Lane) {
  const HessianBlock &Of = L.Blocks[R.Block];
  IRCloner &C = *Lanes[Lane];
  const Expr *Value = C.clone(R.Value);
  long long K = L.Size;
  // Row Offset + (i - Begin), column Lane.
  long long Constant = (static_cast<long long>(Of.Offset) - Of.Begin) * K + Lane;
  const Expr *Index = R.Index;
  if (Of.Scalar || (Index && isa<IntLitExpr>(Index))) {
    long long I = Index ? dyn_cast<IntLitExpr>(Index)->getValue() : 0;
    if (I < static_cast<long long>(Of.Begin) ||
        I >= static_cast<long long>(Of.End))
      return nullptr; // An element outside the selected range.
    return B.assign(B.index(B.ref(HParam), B.intLit(I * K + Constant)),
                    AssignOp::AddAssign, Value);
  }
  const Expr *I = C.clone(Index);
  const Expr *Flat = K == 1 ? I : B.mul(I, B.intLit(K));
  Flat = Constant == 0 ? Flat : B.add(Flat, B.intLit(Constant));
  const Stmt *Add = B.assign(B.index(B.ref(HParam), Flat),
                             AssignOp::AddAssign, Value);
  const Type *Int = I->getType();
  // Both bounds: a pointer may be indexed below Begin (even below 0).
  const Expr *Guard = B.binary(
      BinaryOp::LAnd, B.binary(BinaryOp::Ge, I, B.intLit(Of.Begin, Int)),
      B.binary(BinaryOp::Lt, I, B.intLit(Of.End, Int)));
  BlockStmt *Then = B.block();
  Then->append(Add);
  return M.create<IfStmt>(Guard, Then, nullptr);
}

std::optional<const Stmt *> LaneExpander::laneStmt(const Stmt *S,
                                                   unsigned Lane) {
  if (std::optional<ResultAdd> R = matchResultAdd(S))
    return storeEntry(*R, Lane);
  if (const auto *A = dyn_cast<AssignStmt>(S)) {
    const Var *Root = ActivityAnalysis::getRootVar(A->getLHS());
    if (Root && ResBlock.count(Root))
      fail("a result of its Hessian-vector product is written other than "
           "by an add");
  }
  return std::nullopt;
}

const Stmt *meshad::zeroFill(Module &M, NameScope &Names, Var *Out,
                             unsigned Count) {
  IRBuilder B(M);
  const Type *Int = M.getTypes().getInt("int");
  Var *I = M.createVar(Names.unique("i"), Int, Var::Storage::Local,
                       VarRoles::Temporary);
  BlockStmt *Body = B.block();
  Body->append(B.assign(B.index(B.ref(Out), B.ref(I)), AssignOp::Assign,
                        B.zero(Out->getType()->getElement())));
  return M.create<ForStmt>(B.decl(I, B.intLit(0)),
                           B.binary(BinaryOp::Lt, B.ref(I), B.intLit(Count)),
                           B.assign(B.ref(I), AssignOp::Inc, nullptr), Body);
}

bool LaneExpander::checkNoLeftovers() {
  forEachStmt(H.getBody(), [&](const Stmt *S) {
    if (const auto *D = dyn_cast<DeclStmt>(S); D && LaneVars.count(D->getVar()))
      fail("internal error: tangent '" + D->getVar()->getName() +
           "' was not expanded");
    for (const Expr *E : ownExprs(S))
      forEachExpr(E, [&](const Expr *X) {
        const auto *R = dyn_cast<VarRefExpr>(X);
        if (R && (DirBlock.count(R->getVar()) || ResBlock.count(R->getVar())))
          fail("'" + R->getVar()->getName() +
               "' is used in a way not supported yet");
      });
  });
  return !Failed;
}

bool LaneExpander::run() {
  inlinePointerAliases();
  if (!collect())
    return false;
  if (localizeWrittenDirections() && !collect())
    return false;
  makeLanes();
  IRCloner Top(M);
  Top.setStmtHook([this](const Stmt *S) { return expand(S); });
  BlockStmt *Body = Top.cloneBlock(H.getBody());
  if (Failed)
    return false;
  NameScope Names;
  Names.addFunction(H);
  Names.addStmt(Body);
  BlockStmt *WithZeros = B.block();
  WithZeros->append(zeroFill(M, Names, HParam, L.Size * L.Size));
  for (const Stmt *S : Body->getBody())
    WithZeros->append(S);
  H.setBody(WithZeros);
  std::vector<Var *> Params(H.getParams().begin(),
                            H.getParams().begin() + NumPrimal);
  Params.push_back(HParam);
  H.setParams(std::move(Params));
  return checkNoLeftovers();
}

bool meshad::expandHessianLanes(Module &M, Function &H, unsigned NumPrimal,
                                const HessianLayout &Layout, Var *HParam,
                                DiagnosticSink &Diags,
                                clang::SourceLocation Loc) {
  return LaneExpander(M, H, NumPrimal, Layout, HParam, Diags, Loc).run();
}
