//===- GPU/TwoPhaseSlots.cpp - Element adjoints through slots -------------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//

#include "GPU/TwoPhaseSlots.h"
#include "Analysis/IRWalk.h"
#include "Analysis/IndexForms.h"
#include "GPU/SlotStores.h"
#include "GPU/VertexDefs.h"
#include "IR/Clone.h"
#include "IR/Intrinsics.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"

using namespace meshad;
using namespace meshad::ir;
using namespace meshad::ownership;
using irwalk::spell;
using llvm::dyn_cast;
using llvm::dyn_cast_or_null;

namespace {

/// One add to the adjoint: `Target += Value` (or -=, or an accumulating
/// atomic), Target = Adjoint[Index].
struct SlotAdd {
  const Stmt *S = nullptr;
  const IndexExpr *Target = nullptr;
  const Expr *Value = nullptr;
  bool Subtract = false;
  bool Atomic = false;
};

/// The add that \p S is to \p Adjoint, if it is one.
std::optional<SlotAdd> addTo(const Stmt *S, const Var *Adjoint) {
  SlotAdd Add;
  Add.S = S;
  const Expr *Target = nullptr;
  if (const auto *A = dyn_cast<AssignStmt>(S)) {
    AssignOp Op = A->getOp();
    if (Op != AssignOp::AddAssign && Op != AssignOp::SubAssign &&
        Op != AssignOp::Accumulate)
      return std::nullopt;
    Target = A->getLHS();
    Add.Value = A->getRHS();
    Add.Subtract = A->getOp() == AssignOp::SubAssign;
  } else if (const auto *ES = dyn_cast<ExprStmt>(S)) {
    const auto *Call = dyn_cast<CallExpr>(ES->getExpr());
    const IntrinsicInfo *Info = Call ? lookupIntrinsic(Call) : nullptr;
    if (!Info || !Info->accumulates() || Call->getNumArgs() != 2)
      return std::nullopt;
    const auto *Addr = dyn_cast<UnaryExpr>(irwalk::stripCasts(Call->getArg(0)));
    if (!Addr || Addr->getOp() != UnaryOp::AddrOf)
      return std::nullopt;
    Target = Addr->getSub();
    Add.Value = Call->getArg(1);
    Add.Atomic = Info->isAtomic();
  }
  Add.Target = dyn_cast_or_null<IndexExpr>(Target);
  const auto *Base =
      Add.Target ? dyn_cast<VarRefExpr>(Add.Target->getBase()) : nullptr;
  if (!Base || Base->getVar() != Adjoint)
    return std::nullopt;
  return Add;
}

/// Builds the slot add of each add to the adjoints of the requests.
class SlotRewriter {
public:
  SlotRewriter(IRBuilder &B, Function &F, const std::vector<SlotRequest> &Rs)
      : B(B), F(F), Rs(Rs), Ev(F) {}

  /// Finds the adds and makes their replacements, request I's through
  /// \p Slots[I]; false with \p WhyNot.
  bool prepare(const Function &Primal, const std::vector<Var *> &Slots,
               std::string &WhyNot);
  const Stmt *replacement(const Stmt *S) const {
    return Replacements.lookup(S);
  }

private:
  /// The slot adds of the adjoint of the requests \p Group (one per index
  /// array through which the array is read); false with \p WhyNot.
  bool prepareAdjoint(const Function &Primal,
                      const std::vector<unsigned> &Group,
                      const std::vector<Var *> &Slots, std::string &WhyNot);
  /// Splits the add's index = R.Stride*v + K, v loaded from \p Index; the
  /// position of v's load, and K (null for 0). False when the index is not
  /// of that form.
  bool split(const SlotAdd &A, const SlotRequest &R, const Var *Index,
             const VertexDefs &Defs, const Expr *&Pos, const Expr *&K) const;
  /// The position of the load from \p Index that \p E is or holds at \p S,
  /// or null.
  const Expr *positionOf(const Expr *E, const Stmt *S, const Var *Index,
                         const VertexDefs &Defs) const;
  /// The element id in \p Pos: its one variable that is the thread id or
  /// a grid-stride counter.
  const Var *elementOf(const Expr *Pos);
  /// True when \p E reads a loaded vertex (a load of \p Index or a local
  /// holding one at \p S).
  bool readsVertex(const Expr *E, const Stmt *S, const Var *Index,
                   const VertexDefs &Defs) const;
  /// The slot add replacing \p A of request \p R through \p Slots.
  const Stmt *slotAdd(const SlotAdd &A, const SlotRequest &R, Var *Slots,
                      const Expr *Count, const Var *Element, const Expr *Pos,
                      const Expr *K);

  IRBuilder &B;
  Function &F;
  const std::vector<SlotRequest> &Rs;
  IndexEvaluator Ev;
  llvm::DenseMap<const Stmt *, const Stmt *> Replacements;
};

} // namespace

const Expr *SlotRewriter::positionOf(const Expr *E, const Stmt *S,
                                     const Var *Index,
                                     const VertexDefs &Defs) const {
  E = irwalk::stripCasts(E);
  if (const auto *Ref = dyn_cast<VarRefExpr>(E))
    E = Defs.loadAt(S, Ref->getVar());
  const auto *Load = dyn_cast_or_null<IndexExpr>(
      E ? irwalk::stripCasts(E) : nullptr);
  const auto *Base = Load ? dyn_cast<VarRefExpr>(Load->getBase()) : nullptr;
  return Base && Base->getVar() == Index ? Load->getIndex() : nullptr;
}

bool SlotRewriter::readsVertex(const Expr *E, const Stmt *S,
                               const Var *Index,
                               const VertexDefs &Defs) const {
  bool Found = false;
  forEachExpr(E, [&](const Expr *X) {
    const auto *Ref = dyn_cast<VarRefExpr>(X);
    Found |= (Ref && (Ref->getVar() == Index || Defs.loadAt(S, Ref->getVar())));
  });
  return Found;
}

bool SlotRewriter::split(const SlotAdd &A, const SlotRequest &R,
                         const Var *Index, const VertexDefs &Defs,
                         const Expr *&Pos, const Expr *&K) const {
  // Stride*v (also v*Stride, or v alone for stride 1).
  auto Scaled = [&](const Expr *E) -> const Expr * {
    E = irwalk::stripCasts(E);
    const auto *Mul = dyn_cast<BinaryExpr>(E);
    if (!Mul || Mul->getOp() != BinaryOp::Mul)
      return R.Stride == 1 ? positionOf(E, A.S, Index, Defs) : nullptr;
    for (auto [L, V] : {std::pair{Mul->getLHS(), Mul->getRHS()},
                        std::pair{Mul->getRHS(), Mul->getLHS()}}) {
      const auto *Lit = dyn_cast<IntLitExpr>(irwalk::stripCasts(L));
      if (Lit && Lit->getValue() == R.Stride)
        if (const Expr *P = positionOf(V, A.S, Index, Defs))
          return P;
    }
    return nullptr;
  };
  const Expr *I = irwalk::stripCasts(A.Target->getIndex());
  K = nullptr;
  if ((Pos = Scaled(I)))
    return true;
  const auto *Add = dyn_cast<BinaryExpr>(I);
  if (!Add || Add->getOp() != BinaryOp::Add)
    return false;
  for (auto [V, Rest] : {std::pair{Add->getLHS(), Add->getRHS()},
                         std::pair{Add->getRHS(), Add->getLHS()}})
    if ((Pos = Scaled(V)) && !readsVertex(Rest, A.S, Index, Defs)) {
      K = Rest;
      return true;
    }
  return false;
}

const Var *SlotRewriter::elementOf(const Expr *Pos) {
  const Var *Element = nullptr;
  bool Several = false;
  forEachExpr(Pos, [&](const Expr *X) {
    const auto *Ref = dyn_cast<VarRefExpr>(X);
    if (!Ref || !Ref->getType()->isIntegral())
      return;
    Eval E = Ev.eval(Ref);
    if (!E.Ok)
      return;
    foldGid(E.Form);
    if (!E.Form.isAtom(AtomKind::Gid) && !E.Form.isAtom(AtomKind::GridStride))
      return;
    Several |= Element && Element != Ref->getVar();
    Element = Ref->getVar();
  });
  return Several ? nullptr : Element;
}

/// \p E with the primal's parameters replaced by those of \p F.
static const Expr *onParams(IRBuilder &B, const Expr *E,
                            const Function &Primal, Function &F) {
  IRCloner C(B.getModule());
  C.setExprHook([&](const Expr *X) -> const Expr * {
    const auto *Ref = dyn_cast<VarRefExpr>(X);
    int I = Ref ? Primal.getParamIndex(Ref->getVar()) : -1;
    return I >= 0 ? B.ref(F.getParam(I)) : nullptr;
  });
  return C.clone(E);
}

const Stmt *SlotRewriter::slotAdd(const SlotAdd &A, const SlotRequest &R,
                                  Var *Slots, const Expr *Count,
                                  const Var *Element, const Expr *Pos,
                                  const Expr *K) {
  Module &M = B.getModule();
  const Type *Ty = A.Target->getType()->getUnqualified();
  const Expr *Value = B.cast(Ty, A.Value);
  if (A.Subtract)
    Value = B.neg(Value);
  std::string Name = "meshad::slotAdd<" + std::to_string(R.Arity) + ", " +
                     std::to_string(R.Stride) + ">";
  auto *Call = M.create<CallExpr>(
      M.getTypes().getVoid(), CallExpr::CalleeKind::Intrinsic, Name, -1,
      std::vector<const Expr *>{B.ref(Slots), Count,
                                B.ref(const_cast<Var *>(Element)), Pos,
                                K ? K : B.intLit(0), Value});
  Stmt *Out = M.create<ExprStmt>(Call);
  Out->setLoc(A.S->getLoc());
  return Out;
}

bool SlotRewriter::prepareAdjoint(const Function &Primal,
                                  const std::vector<unsigned> &Group,
                                  const std::vector<Var *> &Slots,
                                  std::string &WhyNot) {
  const Var *Adjoint = F.getParam(Rs[Group.front()].AdjointParam);
  std::vector<SlotAdd> Adds;
  llvm::DenseSet<const Stmt *> AddStmts;
  unsigned Uses = 0;
  forEachStmt(F.getBody(), [&](const Stmt *S) {
    for (const Expr *E : ownExprs(S))
      forEachExpr(E, [&](const Expr *X) {
        const auto *Ref = dyn_cast<VarRefExpr>(X);
        Uses += Ref && Ref->getVar() == Adjoint;
      });
    if (std::optional<SlotAdd> A = addTo(S, Adjoint)) {
      Adds.push_back(*A);
      AddStmts.insert(S);
    }
  });
  if (Adds.empty() || Uses != Adds.size()) {
    WhyNot = Adjoint->getName() + " is used other than by adds to it";
    return false;
  }
  if (llvm::none_of(Adds, [](const SlotAdd &A) { return A.Atomic; })) {
    WhyNot = "its adds are not atomic (thread-exclusive)";
    return false;
  }
  // One walk per index array: which locals hold its loads at each add.
  std::vector<std::unique_ptr<VertexDefs>> Defs;
  std::vector<const Expr *> Counts;
  for (unsigned I : Group) {
    Defs.push_back(std::make_unique<VertexDefs>(
        F, F.getParam(Rs[I].IndexParam), AddStmts));
    Counts.push_back(onParams(B, Rs[I].Count, Primal, F));
  }
  for (const SlotAdd &A : Adds) {
    const Stmt *Out = nullptr;
    for (size_t G = 0; G < Group.size() && !Out; ++G) {
      const SlotRequest &R = Rs[Group[G]];
      const Expr *Pos = nullptr, *K = nullptr;
      const Var *Element = nullptr;
      if (split(A, R, F.getParam(R.IndexParam), *Defs[G], Pos, K) &&
          (Element = elementOf(Pos)))
        Out = slotAdd(A, R, Slots[Group[G]], Counts[G], Element, Pos, K);
    }
    if (!Out) {
      const SlotRequest &R = Rs[Group.front()];
      WhyNot = spell(A.Target) + ": not " + std::to_string(R.Stride) +
               " * " + F.getParam(R.IndexParam)->getName() +
               "[c * t + j] + k in the gradient";
      return false;
    }
    Replacements[A.S] = Out;
  }
  return true;
}

bool SlotRewriter::prepare(const Function &Primal,
                           const std::vector<Var *> &Slots,
                           std::string &WhyNot) {
  // The requests grouped by adjoint, in order of first appearance.
  std::vector<std::vector<unsigned>> Groups;
  for (unsigned I = 0; I < Rs.size(); ++I) {
    auto It = llvm::find_if(Groups, [&](const std::vector<unsigned> &G) {
      return Rs[G.front()].AdjointParam == Rs[I].AdjointParam;
    });
    if (It == Groups.end())
      Groups.push_back({I});
    else
      It->push_back(I);
  }
  for (const std::vector<unsigned> &G : Groups)
    if (!prepareAdjoint(Primal, G, Slots, WhyNot))
      return false;
  return true;
}

/// Makes \p F start with meshad::requireLaunch1D() (each element's slots
/// are its thread's alone only when threads differ in x alone).
static void requireLaunch1D(IRBuilder &B, Function &F) {
  const std::vector<const Stmt *> &Body = F.getBody()->getBody();
  const auto *First = Body.empty() ? nullptr : dyn_cast<ExprStmt>(Body[0]);
  const auto *Call = First ? dyn_cast<CallExpr>(First->getExpr()) : nullptr;
  if (Call && Call->getName() == "meshad::requireLaunch1D")
    return;
  Module &M = B.getModule();
  auto *Check = M.create<CallExpr>(M.getTypes().getVoid(),
                                   CallExpr::CalleeKind::Intrinsic,
                                   "meshad::requireLaunch1D", -1,
                                   std::vector<const Expr *>{});
  std::vector<const Stmt *> New{M.create<ExprStmt>(Check)};
  New.insert(New.end(), Body.begin(), Body.end());
  F.getBody()->setBody(std::move(New));
}

bool meshad::useTwoPhaseSlots(
    IRBuilder &B, Function &F, const Function &Primal,
    const std::vector<SlotRequest> &Rs,
    const std::function<std::string(const std::string &)> &FreshName,
    SlotLayout &Layout, std::string &WhyNot) {
  bool Valid = F.isKernel() && F.getBody() && !Rs.empty();
  for (const SlotRequest &R : Rs)
    Valid &= R.AdjointParam < F.getNumParams() &&
             R.IndexParam < Primal.getNumParams();
  if (!Valid) {
    WhyNot = "not an element kernel's gradient";
    return false;
  }
  std::vector<Var *> Slots;
  for (const SlotRequest &R : Rs) {
    const Var *Adjoint = F.getParam(R.AdjointParam);
    Slots.push_back(B.getModule().createVar(
        FreshName(Slots.empty() ? "_slots" : "_slots" +
                                                 std::to_string(Slots.size())),
        Adjoint->getType(), Var::Storage::Param, Adjoint->getRoles()));
  }
  SlotRewriter Rewriter(B, F, Rs);
  if (!Rewriter.prepare(Primal, Slots, WhyNot))
    return false;
  IRCloner C(B.getModule());
  C.setStmtHook([&](const Stmt *S) -> std::optional<const Stmt *> {
    if (const Stmt *New = Rewriter.replacement(S))
      return New;
    return std::nullopt;
  });
  F.setBody(C.cloneBlock(F.getBody()));
  for (Var *S : Slots)
    F.addParam(S);
  // Plain stores when every slot buffer's are proven.
  SlotStoreProof Proof;
  bool Covers = true;
  Proof.WhyNot = "-fplugin-arg-meshad-element-baseline";
  for (size_t I = 0; I < Rs.size() && Rs[I].TryStores; ++I) {
    std::string Array = F.getParam(Rs[I].AdjointParam)->getName();
    if (llvm::StringRef(Array).starts_with("_d_"))
      Array = Array.substr(3);
    Proof = proveSlotStores(F, Rs[I], Array,
                            Rs.size() > 1 ? Slots[I] : nullptr);
    Covers &= Proof.EveryLaunchCovers;
    if (!Proof.Proven)
      break;
  }
  Proof.EveryLaunchCovers = Proof.Proven && Covers;
  if (Proof.Proven)
    useSlotStores(B, F);
  requireLaunch1D(B, F);
  Layout.Request = Rs.front();
  Layout.Requests = Rs;
  Layout.SlotParam = F.getNumParams() - Rs.size();
  Layout.PlainStores = Proof.Proven;
  Layout.EveryLaunchCovers = Proof.EveryLaunchCovers;
  Layout.StoresWhyNot = Proof.WhyNot;
  Layout.StoresWhere = Proof.Where;
  return true;
}
