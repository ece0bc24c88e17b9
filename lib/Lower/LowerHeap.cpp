//===- Lower/LowerHeap.cpp - new T[n] and delete[] in host code -----------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// A local buffer of the heap (issue 13): `double *t = new double[N];`
/// with a constant N becomes the local array `double t[N]` (value-
/// initialised when the user wrote `new double[N]()`), and its `delete[] t;`
/// is left out, so that the modes differentiate it like any local array
/// (tangent and adjoint arrays beside it). The pointer must keep pointing at
/// the buffer: moving or reassigning it is an error, and so are a size
/// known only at run time and buffers above MaxNewArrayElements (a local
/// array lives on the stack).
///
//===----------------------------------------------------------------------===//

#include "Lower/LoweringImpl.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ParentMapContext.h"

using namespace meshad;
using namespace clang;

namespace {

/// Elements of the largest `new T[N]` that becomes a local array.
constexpr uint64_t MaxNewArrayElements = 1 << 14;

/// `new T[n]`, `new T(v)`, `new T` or `new T()` initializing \p VD.
const CXXNewExpr *getNew(const VarDecl *VD) {
  if (!VD->hasInit() || !VD->getType()->isPointerType())
    return nullptr;
  return dyn_cast<CXXNewExpr>(ExprLowering::skipWrappers(VD->getInit()));
}

/// The value of the size \p E of `new T[n]`: a constant expression, or an
/// integer local initialized with one that its function never changes
/// (`int n = 3; ... new double[n]`).
std::optional<uint64_t> evaluateSize(const Expr *E, const ASTContext &Ctx) {
  Expr::EvalResult R;
  if (E->EvaluateAsInt(R, Ctx))
    return R.Val.getInt().getZExtValue();
  const auto *DRE = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts());
  const auto *Local = DRE ? dyn_cast<VarDecl>(DRE->getDecl()) : nullptr;
  if (!Local || !Local->isLocalVarDecl() || !Local->hasInit() ||
      !Local->getType()->isIntegerType() ||
      !Local->getInit()->EvaluateAsInt(R, Ctx))
    return std::nullopt;
  const auto *FD =
      dyn_cast_or_null<FunctionDecl>(Local->getParentFunctionOrMethod());
  if (!FD || !FD->getBody() || mayChange(FD->getBody(), Local, nullptr))
    return std::nullopt;
  return R.Val.getInt().getZExtValue();
}

/// The C library's \p Name (`malloc`, `std::malloc`) called by \p E.
bool callsLibC(const Expr *E, StringRef Name) {
  const auto *C = dyn_cast_or_null<CallExpr>(E);
  const FunctionDecl *FD = C ? C->getDirectCallee() : nullptr;
  return FD && FD->getName() == Name &&
         (FD->isInStdNamespace() || FD->getDeclContext()->isTranslationUnit() ||
          FD->getDeclContext()->isExternCContext());
}

/// `(T *)malloc(bytes)` or `(T *)calloc(n, size)` initializing \p VD.
const CallExpr *getMalloc(const VarDecl *VD) {
  if (!VD->hasInit() || !VD->getType()->isPointerType())
    return nullptr;
  const Expr *E = VD->getInit()->IgnoreParenCasts();
  return callsLibC(E, "malloc") || callsLibC(E, "calloc") ? cast<CallExpr>(E)
                                                          : nullptr;
}

/// The element count n of `malloc(n * sizeof(T))` (or `sizeof(T) * n`)
/// or `calloc(n, sizeof(T))` for elements of \p ElemSize bytes, else null.
const Expr *getElementCount(const CallExpr *C, uint64_t ElemSize,
                            const ASTContext &Ctx) {
  auto IsElemSize = [&](const Expr *E) {
    Expr::EvalResult R;
    return E->EvaluateAsInt(R, Ctx) &&
           R.Val.getInt().getZExtValue() == ElemSize;
  };
  if (C->getNumArgs() == 2)
    return IsElemSize(C->getArg(1)) ? C->getArg(0) : nullptr;
  if (C->getNumArgs() != 1)
    return nullptr;
  const auto *Mul =
      dyn_cast<BinaryOperator>(C->getArg(0)->IgnoreParenImpCasts());
  if (!Mul || Mul->getOpcode() != BO_Mul)
    return nullptr;
  if (IsElemSize(Mul->getRHS()))
    return Mul->getLHS();
  return IsElemSize(Mul->getLHS()) ? Mul->getRHS() : nullptr;
}

} // namespace

bool StmtLowering::isNewArray(const VarDecl *VD) const {
  return getNew(VD) != nullptr || getMalloc(VD) != nullptr;
}

const VarDecl *StmtLowering::getFreedBuffer(const Expr *E) const {
  const auto *C = dyn_cast<CallExpr>(E);
  if (!callsLibC(C, "free") || C->getNumArgs() != 1)
    return nullptr;
  const auto *DRE = dyn_cast<DeclRefExpr>(C->getArg(0)->IgnoreParenCasts());
  const auto *VD = DRE ? dyn_cast<VarDecl>(DRE->getDecl()) : nullptr;
  return VD && S.NewArrays.count(VD) ? VD : nullptr;
}

/// `meshad::deleteArray(t);` for the release of a buffer of run-time size.
void StmtLowering::emitDeleteArray(const VarDecl *VD, SourceLocation Loc,
                                   ir::BlockStmt *B) {
  emit(B, S.make<ir::ExprStmt>(
              Loc, S.make<ir::CallExpr>(
                       Loc, S.M.getTypes().getVoid(),
                       ir::CallExpr::CalleeKind::Intrinsic,
                       "meshad::deleteArray", -1,
                       std::vector<const ir::Expr *>{
                           S.make<ir::VarRefExpr>(Loc, S.Vars[VD])})));
}

bool StmtLowering::lowerFree(const Expr *E, ir::BlockStmt *B) {
  const VarDecl *VD = getFreedBuffer(E);
  if (S.Vars.count(VD) && S.Vars[VD]->getType()->isPointer())
    emitDeleteArray(VD, E->getBeginLoc(), B); // a buffer of run-time size
  return true; // else the local array that replaced the buffer
}

/// `T *t = (T *)malloc(N * sizeof(T));` (or calloc, zeroed) with a
/// constant size: the local array `T t[N]`, as for new[].
bool StmtLowering::lowerMallocArray(const VarDecl *VD, const DeclStmt *DS,
                                    ir::BlockStmt *B) {
  const CallExpr *C = getMalloc(VD);
  QualType ElemTy = VD->getType()->getPointeeType();
  Expr::EvalResult A, Bytes;
  bool Calloc = C->getNumArgs() == 2;
  uint64_t Size = 0, ElemSize = S.Ctx.getTypeSizeInChars(ElemTy).getQuantity();
  if (C->getNumArgs() >= 1 && C->getArg(0)->EvaluateAsInt(A, S.Ctx) &&
      (!Calloc || C->getArg(1)->EvaluateAsInt(Bytes, S.Ctx)))
    Size = A.Val.getInt().getZExtValue() *
           (Calloc ? Bytes.Val.getInt().getZExtValue() : 1);
  bool Constant = Size != 0 && ElemSize != 0 && Size % ElemSize == 0 &&
                  Size / ElemSize <= MaxNewArrayElements;
  const Expr *Count =
      Constant || ElemSize == 0 ? nullptr : getElementCount(C, ElemSize, S.Ctx);
  if (Count && !Count->isValueDependent() &&
      !Count->isIntegerConstantExpr(S.Ctx))
    return lowerRuntimeArray(VD, DS, B, Count, ElemTy, C->getBeginLoc());
  if (!Constant) {
    S.fail(C->getBeginLoc(),
           Twine("meshad: '") + (Calloc ? "calloc" : "malloc") +
               "' of this size is not supported: write malloc(n * "
               "sizeof(T)) or calloc(n, sizeof(T)) (a constant n of at "
               "most " +
               Twine(MaxNewArrayElements) +
               " elements becomes a local array, a run-time n stays on the "
               "heap)");
    S.Vars[VD] = S.M.createVar(Exprs.localName(VD),
                               Types.lowerType(VD->getType()));
    S.NewArrays.insert(VD);
    return false;
  }
  return declareBuffer(VD, DS, B, ElemTy, Size / ElemSize, Calloc,
                       C->getBeginLoc());
}

bool StmtLowering::lowerNewArray(const VarDecl *VD, const DeclStmt *DS,
                                 ir::BlockStmt *B) {
  if (getMalloc(VD))
    return lowerMallocArray(VD, DS, B);
  const CXXNewExpr *NE = getNew(VD);
  SourceLocation Loc = NE->getBeginLoc();
  auto Fail = [&](const Twine &Msg) {
    S.fail(Loc, Msg);
    // Registered all the same, to avoid follow-up errors at its uses.
    S.Vars[VD] = S.M.createVar(Exprs.localName(VD),
                               Types.lowerType(VD->getType()));
    S.NewArrays.insert(VD);
    return false;
  };
  if (!NE->isArray())
    return lowerNewScalar(VD, DS, B, NE);
  std::optional<const Expr *> SizeExpr = NE->getArraySize();
  std::optional<uint64_t> Size;
  if (SizeExpr && *SizeExpr)
    Size = evaluateSize(*SizeExpr, S.Ctx);
  if (!Size && SizeExpr && *SizeExpr)
    return lowerRuntimeArray(VD, DS, B, *SizeExpr, NE->getAllocatedType(),
                             Loc);
  if (!Size)
    return Fail("meshad: 'new T[]' without a size is not supported");
  uint64_t N = *Size;
  if (N == 0 || N > MaxNewArrayElements)
    return Fail(Twine("meshad: 'new T[") + Twine(N) +
                "]' becomes a local array of at most " +
                Twine(MaxNewArrayElements) +
                " elements; allocate larger buffers outside and pass a "
                "pointer");
  bool Zeroed = NE->hasInitializer();
  if (Zeroed && !isa<CXXConstructExpr, ImplicitValueInitExpr>(
                    NE->getInitializer()->IgnoreImplicit()))
    return Fail("meshad: 'new T[n]' with an initializer list is not "
                "supported; assign the elements after 'new'");
  return declareBuffer(VD, DS, B, NE->getAllocatedType(), N, Zeroed, Loc);
}

/// `T *t = new T[n];` of a run-time size n: the pointer local `T *t;` set
/// by `meshad::newArray(&t, n);` (zeroed), so that the modes allocate the
/// tangent or adjoint buffer beside it; `delete[] t;` becomes
/// `meshad::deleteArray(t);`. Outside loops only: reverse mode releases the
/// buffer at the end of its sweep, and a buffer allocated per iteration
/// would need one per iteration.
bool StmtLowering::lowerRuntimeArray(const VarDecl *VD, const DeclStmt *DS,
                                     ir::BlockStmt *B, const Expr *Size,
                                     QualType ElemTy, SourceLocation Loc) {
  auto Fail = [&](const Twine &Msg) {
    S.fail(Loc, Msg);
    S.Vars[VD] = S.M.createVar(Exprs.localName(VD),
                               Types.lowerType(VD->getType()));
    S.NewArrays.insert(VD);
    return false;
  };
  if (isInsideLoop(DS) && !isReleasedInBlock(VD, DS))
    return Fail(Twine("meshad: a heap buffer of a size known only at run "
                      "time allocated in a loop must be released in the "
                      "iteration that allocates it: write 'delete[] ") +
                VD->getName() + ";' (or 'free(" + VD->getName() +
                ")') later in the same block, with no break, continue or "
                "return between (or allocate the buffer once before the "
                "loop)");
  const ir::Type *Elem = Types.lowerType(ElemTy);
  if (!Elem->isFloatingScalar() && !Elem->isIntegral() && !Elem->isVector())
    return Fail("meshad: a heap buffer of this type is not supported; "
                "allocate numbers or vectors");
  if (llvm::any_of(getScopeAfter(DS), [&](const Stmt *St) {
        return mayChange(St, VD, nullptr);
      }))
    return Fail(Twine("meshad: pointer '") + VD->getName() +
                "' to a heap buffer is moved or reassigned; keep it "
                "and index the buffer (" + VD->getName() + "[i])");
  const ir::Expr *N = Exprs.lower(Size->IgnoreImpCasts()); // not size_t
  if (!N)
    return false;
  ir::TypeContext &TC = S.M.getTypes();
  ir::Var *V = S.M.createVar(Exprs.localName(VD), TC.getPointer(Elem));
  S.Vars[VD] = V;
  S.NewArrays.insert(VD);
  emit(B, S.make<ir::DeclStmt>(VD->getLocation(), V, nullptr));
  const ir::Expr *Addr =
      S.make<ir::UnaryExpr>(Loc, TC.getPointer(V->getType()),
                            ir::UnaryOp::AddrOf, S.make<ir::VarRefExpr>(Loc, V));
  emit(B, S.make<ir::ExprStmt>(
              Loc, S.make<ir::CallExpr>(
                       Loc, TC.getVoid(), ir::CallExpr::CalleeKind::Intrinsic,
                       "meshad::newArray", -1,
                       std::vector<const ir::Expr *>{Addr, N})));
  return true;
}

namespace {

/// Whether \p St is `delete[] VD;` or `free(VD);`.
bool releases(const Stmt *St, const VarDecl *VD) {
  const auto *E = dyn_cast<Expr>(St);
  if (!E)
    return false;
  E = E->IgnoreImplicit();
  const Expr *Arg = nullptr;
  if (const auto *Del = dyn_cast<CXXDeleteExpr>(E))
    Arg = Del->getArgument();
  else if (callsLibC(E, "free") && cast<CallExpr>(E)->getNumArgs() == 1)
    Arg = cast<CallExpr>(E)->getArg(0);
  const auto *DRE =
      Arg ? dyn_cast<DeclRefExpr>(Arg->IgnoreParenCasts()) : nullptr;
  return DRE && DRE->getDecl() == VD;
}

/// Whether \p St may leave the block it is in (a `return`, a `goto`, a
/// `break` or `continue` of an enclosing loop or switch), or release
/// \p VD (nested in it). \p InLoop, \p InSwitch: \p St is nested in a
/// loop (a switch) of the block.
bool leavesOrReleases(const Stmt *St, const VarDecl *VD, bool InLoop = false,
                      bool InSwitch = false) {
  if (!St)
    return false;
  if (isa<ReturnStmt, GotoStmt, CXXTryStmt>(St) || releases(St, VD))
    return true;
  if (isa<BreakStmt>(St))
    return !InLoop && !InSwitch;
  if (isa<ContinueStmt>(St))
    return !InLoop;
  InLoop |= isa<ForStmt, WhileStmt, DoStmt, CXXForRangeStmt>(St);
  InSwitch |= isa<SwitchStmt>(St);
  return llvm::any_of(St->children(), [&](const Stmt *Child) {
    return leavesOrReleases(Child, VD, InLoop, InSwitch);
  });
}

} // namespace

/// A buffer allocated in a loop is released later in its block, by a
/// statement of the block itself that every path from the allocation
/// reaches (reverse mode keeps each iteration's buffer until its reverse).
bool StmtLowering::isReleasedInBlock(const VarDecl *VD, const DeclStmt *DS) {
  for (const Stmt *St : getScopeAfter(DS)) {
    if (releases(St, VD))
      return true;
    if (leavesOrReleases(St, VD))
      return false;
  }
  return false;
}

/// A statement of a loop's body, or of a loop's condition.
bool StmtLowering::isInsideLoop(const Stmt *St) {
  DynTypedNodeList Parents = S.Ctx.getParents(*St);
  while (!Parents.empty()) {
    const Stmt *P = Parents[0].get<Stmt>();
    if (!P)
      return false; // the function, or a declaration
    if (isa<ForStmt, WhileStmt, DoStmt, CXXForRangeStmt>(P))
      return true;
    Parents = S.Ctx.getParents(*P);
  }
  return false;
}

/// `T *p = new T(v);` (or `new T`, `new T()`, zeroed) of a number or a
/// vector: the local array `T p[1]`, its element assigned v; `*p` and
/// `p[0]` read it, and `delete p;` is left out.
bool StmtLowering::lowerNewScalar(const VarDecl *VD, const DeclStmt *DS,
                                  ir::BlockStmt *B, const CXXNewExpr *NE) {
  SourceLocation Loc = NE->getBeginLoc();
  const Expr *Init = NE->hasInitializer() ? NE->getInitializer() : nullptr;
  if (const auto *PL = dyn_cast_or_null<ParenListExpr>(Init);
      PL && PL->getNumExprs() == 1)
    Init = PL->getExpr(0);
  if (const auto *IL = dyn_cast_or_null<InitListExpr>(Init);
      IL && IL->getNumInits() == 1)
    Init = IL->getInit(0);
  bool Zeroed =
      Init &&
      isa<CXXConstructExpr, ImplicitValueInitExpr, InitListExpr, ParenListExpr>(
          Init->IgnoreImplicit());
  if (Zeroed && !isa<ImplicitValueInitExpr>(Init->IgnoreImplicit()) &&
      !(isa<InitListExpr>(Init) &&
        cast<InitListExpr>(Init)->getNumInits() == 0)) {
    S.fail(Loc, "meshad: 'new T(...)' of this form is not supported; write "
                "'new T(v)' of a number or a vector, or a local variable");
    S.Vars[VD] =
        S.M.createVar(Exprs.localName(VD), Types.lowerType(VD->getType()));
    S.NewArrays.insert(VD);
    return false;
  }
  if (!declareBuffer(VD, DS, B, NE->getAllocatedType(), 1, Zeroed, Loc))
    return false;
  if (!Init || Zeroed)
    return true;
  const ir::Expr *Value = Exprs.lower(Init);
  if (!Value)
    return false;
  ir::Var *V = S.Vars[VD];
  const ir::Type *Elem0 = Types.lowerType(NE->getAllocatedType());
  const ir::Expr *Elem = S.make<ir::IndexExpr>(
      Loc, Elem0, S.make<ir::VarRefExpr>(Loc, V),
      S.make<ir::IntLitExpr>(Loc, S.M.getTypes().getInt(), 0, ""));
  emit(B, S.make<ir::AssignStmt>(Loc, Elem, ir::AssignOp::Assign, Value));
  return true;
}

/// The local array `T t[N]` that replaces the heap buffer \p VD points to.
bool StmtLowering::declareBuffer(const VarDecl *VD, const DeclStmt *DS,
                                 ir::BlockStmt *B, QualType ElemTy,
                                 uint64_t N, bool Zeroed, SourceLocation Loc) {
  auto Fail = [&](const Twine &Msg) {
    S.fail(Loc, Msg);
    S.Vars[VD] = S.M.createVar(Exprs.localName(VD),
                               Types.lowerType(VD->getType()));
    S.NewArrays.insert(VD);
    return false;
  };
  const ir::Type *Elem = Types.lowerType(ElemTy);
  if (!Elem->isFloatingScalar() && !Elem->isIntegral() && !Elem->isVector())
    return Fail("meshad: a heap buffer of this type is not supported; "
                "allocate numbers or vectors");
  if (llvm::any_of(getScopeAfter(DS), [&](const Stmt *St) {
        return mayChange(St, VD, nullptr);
      }))
    return Fail(Twine("meshad: pointer '") + VD->getName() +
                "' to a heap buffer is moved or reassigned; keep it "
                "and index the buffer (" + VD->getName() + "[i])");
  const ir::Type *Ty = S.M.getTypes().getArray(Elem, N);
  ir::Var *V = S.M.createVar(Exprs.localName(VD), Ty);
  S.Vars[VD] = V;
  S.NewArrays.insert(VD);
  const ir::Expr *Init = Zeroed ? Exprs.makeZero(Ty, Loc) : nullptr;
  emit(B, S.make<ir::DeclStmt>(VD->getLocation(), V, Init));
  return true;
}

bool StmtLowering::lowerDelete(const CXXDeleteExpr *E, ir::BlockStmt *B) {
  const auto *DRE =
      dyn_cast<DeclRefExpr>(E->getArgument()->IgnoreParenImpCasts());
  const auto *VD = DRE ? dyn_cast<VarDecl>(DRE->getDecl()) : nullptr;
  if (VD && S.NewArrays.count(VD) && S.Vars.count(VD) &&
      S.Vars[VD]->getType()->isPointer()) { // a buffer of run-time size
    emitDeleteArray(VD, E->getBeginLoc(), B);
    return true;
  }
  if (VD && S.NewArrays.count(VD))
    return true; // the local array that replaced the buffer
  S.fail(E->getBeginLoc(),
         "meshad: 'delete' is supported only as 'delete[] t' of a buffer "
         "'t = new T[N]' (or 'delete p' of 'p = new T(v)') of the same "
         "function (a local array)");
  return false;
}
