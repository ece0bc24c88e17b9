//===- GPU/GatherTiles.cpp - Stencil adjoints as gathers ------------------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//

#include "GPU/GatherTiles.h"

#include "AD/Analysis/Activity.h"
#include "Analysis/IndexForms.h"
#include "AD/Analysis/ReverseNeeds.h"
#include "IR/Clone.h"
#include "IR/Intrinsics.h"
#include "IR/Traversal.h"

#include "llvm/ADT/DenseMap.h"

#include <map>
#include <set>

using namespace meshad;
using namespace meshad::ir;
using llvm::cast;
using llvm::dyn_cast;
using llvm::isa;
using BK = BuiltinExpr::Builtin;

namespace {

bool isBuiltin(const Expr *E, BK K) {
  const auto *B = dyn_cast<BuiltinExpr>(E);
  return B && B->getBuiltin() == K && B->getDim() == 0;
}

/// blockIdx.x * blockDim.x + threadIdx.x, in any operand order.
bool isGid(const Expr *E) {
  const auto *Add = dyn_cast<BinaryExpr>(E);
  if (!Add || Add->getOp() != BinaryOp::Add)
    return false;
  auto IsBase = [](const Expr *X) {
    const auto *Mul = dyn_cast<BinaryExpr>(X);
    if (!Mul || Mul->getOp() != BinaryOp::Mul)
      return false;
    return (isBuiltin(Mul->getLHS(), BK::BlockIdx) &&
            isBuiltin(Mul->getRHS(), BK::BlockDim)) ||
           (isBuiltin(Mul->getLHS(), BK::BlockDim) &&
            isBuiltin(Mul->getRHS(), BK::BlockIdx));
  };
  return (IsBase(Add->getLHS()) && isBuiltin(Add->getRHS(), BK::ThreadIdx)) ||
         (IsBase(Add->getRHS()) && isBuiltin(Add->getLHS(), BK::ThreadIdx));
}

bool isTileCall(const Expr *E, const char *Fn) {
  const auto *C = dyn_cast<CallExpr>(E);
  return C && C->getCalleeKind() == CallExpr::CalleeKind::Intrinsic &&
         C->getName().rfind(std::string("meshad::") + Fn + "<", 0) == 0;
}

const CallExpr *tileCallOf(const Stmt *S, const char *Fn) {
  const auto *ES = dyn_cast<ExprStmt>(S);
  return ES && isTileCall(ES->getExpr(), Fn) ? dyn_cast<CallExpr>(ES->getExpr())
                                             : nullptr;
}

/// Finds out whether a gradient kernel's thread body fits the gather form
/// and where its tile adds go.
class GatherCheck {
public:
  GatherCheck(const Function &F, llvm::ArrayRef<GatherTile> Tiles)
      : Indices(F), Tiles(Tiles) {}

  /// Checks every statement of \p Body; false with the reason in WhyNot.
  bool check(llvm::ArrayRef<const Stmt *> Body);

  std::string WhyNot;
  /// The offset d of each tile add (its index is gid + d).
  llvm::DenseMap<const CallExpr *, long long> Offsets;
  /// The tile of each tile add.
  llvm::DenseMap<const CallExpr *, const GatherTile *> TileOf;
  std::set<long long> AllOffsets;

private:
  bool fail(std::string Why) {
    if (WhyNot.empty())
      WhyNot = std::move(Why);
    return false;
  }
  bool checkStmt(const Stmt *S);
  bool checkExpr(const Expr *E);
  bool checkCall(const CallExpr *C);
  bool checkTileAdd(const CallExpr *C);
  /// A local of the thread (not memory other threads see).
  static bool isThreadLocal(const Expr *LValue);

  ownership::IndexEvaluator Indices;
  llvm::ArrayRef<GatherTile> Tiles;
};

bool GatherCheck::check(llvm::ArrayRef<const Stmt *> Body) {
  for (const Stmt *S : Body) {
    bool Ok = true;
    forEachStmt(S, [&](const Stmt *X) { Ok = Ok && checkStmt(X); });
    if (!Ok)
      return false;
  }
  if (AllOffsets.empty())
    return fail("no tile adds");
  return true;
}

bool GatherCheck::isThreadLocal(const Expr *LValue) {
  const Var *Root = ActivityAnalysis::getRootVar(LValue);
  if (!Root || Root->getStorage() != Var::Storage::Local ||
      Root->getType()->isPointer())
    return false;
  // *p writes where p points, which may be anywhere.
  bool Deref = false;
  forEachExpr(LValue, [&](const Expr *X) {
    if (const auto *U = dyn_cast<UnaryExpr>(X))
      Deref |= U->getOp() == UnaryOp::Deref;
  });
  return !Deref;
}

bool GatherCheck::checkStmt(const Stmt *S) {
  switch (S->getKind()) {
  case Stmt::Kind::For:
  case Stmt::Kind::While:
  case Stmt::Kind::Do:
    return fail("the thread's work has a loop, which each neighbour would "
                "repeat");
  case Stmt::Kind::Return:
  case Stmt::Kind::Launch:
    return fail("the thread's work returns early");
  case Stmt::Kind::Assign:
    if (!isThreadLocal(cast<AssignStmt>(S)->getLHS()))
      return fail("the sweeps store to memory other threads can see");
    break;
  case Stmt::Kind::Decl:
    if (cast<DeclStmt>(S)->getVar()->getStorage() != Var::Storage::Local)
      return fail("the kernel declares __shared__ memory");
    break;
  default:
    break;
  }
  for (const Expr *E : ownExprs(S))
    if (!checkExpr(E))
      return false;
  return true;
}

bool GatherCheck::checkExpr(const Expr *E) {
  bool Ok = true;
  llvm::SmallPtrSet<const Expr *, 8> GidSites;
  forEachExpr(E, [&](const Expr *X) {
    if (!Ok)
      return;
    if (isGid(X)) {
      // Its builtins are the global thread id, which gets replaced.
      forEachExpr(X, [&](const Expr *Y) { GidSites.insert(Y); });
      return;
    }
    if (GidSites.count(X))
      return;
    if (isBuiltin(X, BK::ThreadIdx) || isBuiltin(X, BK::BlockIdx))
      Ok = fail("threadIdx.x or blockIdx.x is used outside blockIdx.x * "
                "blockDim.x + threadIdx.x");
    else if (const auto *C = dyn_cast<CallExpr>(X))
      Ok = checkCall(C);
  });
  return Ok;
}

bool GatherCheck::checkCall(const CallExpr *C) {
  switch (C->getCalleeKind()) {
  case CallExpr::CalleeKind::Math:
    return true;
  case CallExpr::CalleeKind::Intrinsic:
    if (isTileCall(C, "tileAdd"))
      return checkTileAdd(C);
    if (isPureIntrinsic(C->getName()))
      return true;
    // A check may run once per gathered neighbour.
    if (const IntrinsicInfo *I = lookupIntrinsic(C); I && I->has(IF_Check))
      return true;
    return fail("the sweeps call " + C->getName());
  case CallExpr::CalleeKind::User:
    // Callees may write only through pointers to the thread's locals.
    for (const Expr *A : C->getArgs()) {
      const Type *Ty = A->getType();
      if (!Ty->isPointer() || Ty->getElement()->isConst())
        continue;
      const auto *U = dyn_cast<UnaryExpr>(A);
      if (U && U->getOp() == UnaryOp::AddrOf && isThreadLocal(U->getSub()))
        continue;
      return fail("a callee may write to memory other threads can see");
    }
    return true;
  }
  return true;
}

bool GatherCheck::checkTileAdd(const CallExpr *C) {
  const auto *Adj = dyn_cast<VarRefExpr>(C->getArg(1));
  const GatherTile *T = nullptr;
  for (const GatherTile &G : Tiles)
    if (Adj && Adj->getVar() == G.Adjoint)
      T = &G;
  if (!T)
    return fail("a tile add to an unknown array");
  if (T->Stride != 1)
    return fail("the accesses are strided (" + std::to_string(T->Stride) +
                "*gid + d)");
  ownership::Eval R = Indices.eval(C->getArg(2));
  ownership::Monomial Gid{ownership::Atom{ownership::AtomKind::Gid, 0, 0}};
  if (!R.Ok || R.Form.Terms.size() != 1 || !R.Form.Terms.count(Gid) ||
      R.Form.Terms.at(Gid) != 1)
    return fail("an index is not gid + d (" + (R.Ok ? std::string("form ") + Indices.spell(R.Form) : R.Why) + ")");
  Offsets[C] = R.Form.Const;
  TileOf[C] = T;
  AllOffsets.insert(R.Form.Const);
  return true;
}

/// Builds the gather form of one function body.
class GatherBuilder {
public:
  GatherBuilder(IRBuilder &B, const GatherCheck &Check,
                llvm::ArrayRef<GatherTile> Tiles,
                const std::function<std::string(const std::string &)> &Fresh)
      : B(B), M(B.getModule()), Check(Check), Tiles(Tiles), Fresh(Fresh) {}

  /// The statements replacing the thread's work \p Work.
  void build(llvm::ArrayRef<const Stmt *> Work, BlockStmt *Out);

private:
  /// \p X + \p K, spelled X - |K| for negative K.
  const Expr *plus(const Expr *X, long long K) {
    const Type *LL = M.getTypes().getInt("long long");
    if (K < 0)
      return B.sub(X, B.intLit(-K, LL));
    return B.add(X, B.intLit(K, LL));
  }
  /// The thread's work as thread E - Offset would do it, keeping only the
  /// tile adds with that offset.
  BlockStmt *neighbour(llvm::ArrayRef<const Stmt *> Work, long long Offset);

  IRBuilder &B;
  Module &M;
  const GatherCheck &Check;
  llvm::ArrayRef<GatherTile> Tiles;
  const std::function<std::string(const std::string &)> &Fresh;
  Var *E = nullptr;     ///< The element this iteration gathers.
  Var *Total = nullptr; ///< Threads in the grid.
  std::map<const Var *, std::pair<Var *, Var *>> Sums; ///< Sum, touched flag.
};

void GatherBuilder::build(llvm::ArrayRef<const Stmt *> Work, BlockStmt *Out) {
  const Type *LL = M.getTypes().getInt("long long");
  auto Builtin = [&](BK K) {
    return M.create<BuiltinExpr>(M.getTypes().getInt("unsigned int"), K, 0);
  };
  long long Lo = *Check.AllOffsets.begin(), Hi = *Check.AllOffsets.rbegin();
  std::string Range =
      "<" + std::to_string(Lo) + ", " + std::to_string(Hi) + ">";
  auto Runtime = [&](const char *Fn, std::vector<const Expr *> Args) {
    return M.create<CallExpr>(LL, CallExpr::CalleeKind::Intrinsic,
                              std::string("meshad::") + Fn + Range, -1,
                              std::move(Args));
  };
  Total = M.createVar(Fresh("_threads"), LL);
  Out->append(B.decl(Total, B.mul(B.cast(LL, Builtin(BK::GridDim)),
                                  Builtin(BK::BlockDim))));
  Var *J = M.createVar(Fresh("_j"), LL);
  E = M.createVar(Fresh("_e"), LL);
  const Expr *Gid = B.add(B.mul(B.cast(LL, Builtin(BK::BlockIdx)),
                                Builtin(BK::BlockDim)),
                          Builtin(BK::ThreadIdx));
  auto *Body = B.block();
  Body->append(
      B.decl(E, Runtime("gatherElement", {B.ref(J), B.ref(Total)})));
  for (const GatherTile &T : Tiles) {
    const Type *Elem = T.Adjoint->getType()->getElement()->getUnqualified();
    Var *Sum = M.createVar(Fresh(T.Adjoint->getName() + "_sum"), Elem);
    Var *Hit = M.createVar(Fresh(T.Adjoint->getName() + "_hit"),
                           M.getTypes().getBool());
    Body->append(B.decl(Sum, B.zero(Elem)));
    Body->append(B.decl(Hit, M.create<BoolLitExpr>(M.getTypes().getBool(),
                                                   false)));
    Sums[T.Adjoint] = {Sum, Hit};
  }
  for (long long D : Check.AllOffsets) {
    // Thread t = e - D adds to element t + D = e.
    const Expr *T = plus(B.ref(E), -D);
    const Expr *InGrid = B.binary(
        BinaryOp::LAnd, B.binary(BinaryOp::Ge, T, B.intLit(0, LL)),
        B.binary(BinaryOp::Lt, T, B.ref(Total)));
    Body->append(M.create<IfStmt>(InGrid, neighbour(Work, D), nullptr));
  }
  for (const GatherTile &T : Tiles) {
    auto [Sum, Hit] = Sums[T.Adjoint];
    const Expr *Elem = B.index(B.ref(const_cast<Var *>(T.Adjoint)), B.ref(E));
    Body->append(M.create<IfStmt>(
        B.ref(Hit),
        M.create<BlockStmt>(std::vector<const Stmt *>{
            B.assign(Elem, AssignOp::AddAssign, B.ref(Sum))}),
        nullptr));
  }
  Out->append(M.create<ForStmt>(
      B.decl(J, Gid),
      B.binary(BinaryOp::Lt, B.ref(J), Runtime("gatherSlots", {B.ref(Total)})),
      B.assign(B.ref(J), AssignOp::AddAssign, B.ref(Total)), Body));
}

BlockStmt *GatherBuilder::neighbour(llvm::ArrayRef<const Stmt *> Work,
                                    long long Offset) {
  IRCloner C(M);
  for (const Stmt *S : Work)
    forEachStmt(S, [&](const Stmt *X) {
      if (const auto *D = dyn_cast<DeclStmt>(X))
        C.freshVar(D->getVar());
    });
  C.setExprHook([&](const Expr *X) -> const Expr * {
    if (!isGid(X))
      return nullptr;
    return B.cast(X->getType(), plus(B.ref(E), -Offset));
  });
  C.setStmtHook([&](const Stmt *S) -> std::optional<const Stmt *> {
    const CallExpr *Add = tileCallOf(S, "tileAdd");
    if (!Add)
      return std::nullopt;
    if (Check.Offsets.lookup(Add) != Offset)
      return nullptr;
    auto [Sum, Hit] = Sums.at(Check.TileOf.lookup(Add)->Adjoint);
    return M.create<BlockStmt>(std::vector<const Stmt *>{
        B.assign(B.ref(Sum), AssignOp::AddAssign, C.clone(Add->getArg(3))),
        B.assign(B.ref(Hit), AssignOp::Assign,
                 M.create<BoolLitExpr>(M.getTypes().getBool(), true))});
  });
  auto *Out = B.block();
  for (const Stmt *S : Work)
    if (const Stmt *Copy = C.clone(S))
      Out->append(Copy);
  return Out;
}

} // namespace

bool meshad::gatherTiles(
    IRBuilder &B, Function &F, llvm::ArrayRef<GatherTile> Tiles,
    const std::function<std::string(const std::string &)> &FreshName,
    std::string &WhyNot) {
  if (Tiles.empty() || !F.getBody()) {
    WhyNot = "no tiles";
    return false;
  }
  // The tiles themselves go; the launch check stays first.
  std::vector<const Stmt *> Prologue, Work;
  for (const Stmt *S : F.getBody()->getBody()) {
    if (const auto *D = dyn_cast<DeclStmt>(S)) {
      bool IsTile = false;
      for (const GatherTile &T : Tiles)
        IsTile |= D->getVar() == T.Tile;
      if (IsTile)
        continue;
    }
    if (tileCallOf(S, "tileZero") || tileCallOf(S, "tileWriteBack"))
      continue;
    const auto *ES = dyn_cast<ExprStmt>(S);
    const auto *Call = ES ? dyn_cast<CallExpr>(ES->getExpr()) : nullptr;
    if (Call && Call->getName().rfind("meshad::requireLaunch", 0) == 0) {
      Prologue.push_back(S);
      continue;
    }
    Work.push_back(S);
  }
  GatherCheck Check(F, Tiles);
  if (!Check.check(Work)) {
    WhyNot = Check.WhyNot;
    return false;
  }
  auto *Out = B.block();
  for (const Stmt *S : Prologue)
    Out->append(S);
  GatherBuilder(B, Check, Tiles, FreshName).build(Work, Out);
  F.setBody(Out);
  return true;
}
