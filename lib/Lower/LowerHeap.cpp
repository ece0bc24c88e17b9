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

using namespace meshad;
using namespace clang;

namespace {

/// Elements of the largest `new T[N]` that becomes a local array.
constexpr uint64_t MaxNewArrayElements = 1 << 14;

const CXXNewExpr *getNewArray(const VarDecl *VD) {
  if (!VD->hasInit() || !VD->getType()->isPointerType())
    return nullptr;
  const auto *NE =
      dyn_cast<CXXNewExpr>(ExprLowering::skipWrappers(VD->getInit()));
  return NE && NE->isArray() ? NE : nullptr;
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

} // namespace

bool StmtLowering::isNewArray(const VarDecl *VD) const {
  return getNewArray(VD) != nullptr || getMalloc(VD) != nullptr;
}

bool StmtLowering::isFreeOfBuffer(const Expr *E) const {
  const auto *C = dyn_cast<CallExpr>(E);
  if (!callsLibC(C, "free") || C->getNumArgs() != 1)
    return false;
  const auto *DRE = dyn_cast<DeclRefExpr>(C->getArg(0)->IgnoreParenCasts());
  const auto *VD = DRE ? dyn_cast<VarDecl>(DRE->getDecl()) : nullptr;
  return VD && S.NewArrays.count(VD);
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
  if (Size == 0 || ElemSize == 0 || Size % ElemSize != 0 ||
      Size / ElemSize > MaxNewArrayElements) {
    S.fail(C->getBeginLoc(),
           Twine("meshad: '") + (Calloc ? "calloc" : "malloc") +
               "' becomes a local array: give it a constant size, a "
               "multiple of the element's, of at most " +
               Twine(MaxNewArrayElements) + " elements (malloc(N * "
               "sizeof(T))); allocate larger buffers outside and pass a "
               "pointer");
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
  const CXXNewExpr *NE = getNewArray(VD);
  SourceLocation Loc = NE->getBeginLoc();
  auto Fail = [&](const Twine &Msg) {
    S.fail(Loc, Msg);
    // Registered all the same, to avoid follow-up errors at its uses.
    S.Vars[VD] = S.M.createVar(Exprs.localName(VD),
                               Types.lowerType(VD->getType()));
    S.NewArrays.insert(VD);
    return false;
  };
  Expr::EvalResult Size;
  std::optional<const Expr *> SizeExpr = NE->getArraySize();
  if (!SizeExpr || !*SizeExpr || !(*SizeExpr)->EvaluateAsInt(Size, S.Ctx))
    return Fail("meshad: 'new T[n]' with a size known only at run time is "
                "not supported; allocate the buffer outside the "
                "differentiated function and pass a pointer");
  uint64_t N = Size.Val.getInt().getZExtValue();
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

bool StmtLowering::lowerDelete(const CXXDeleteExpr *E) {
  const auto *DRE =
      dyn_cast<DeclRefExpr>(E->getArgument()->IgnoreParenImpCasts());
  const auto *VD = DRE ? dyn_cast<VarDecl>(DRE->getDecl()) : nullptr;
  if (E->isArrayForm() && VD && S.NewArrays.count(VD))
    return true; // the local array that replaced the buffer
  S.fail(E->getBeginLoc(),
         "meshad: 'delete' is supported only as 'delete[] t' of a buffer "
         "'t = new T[N]' of the same function (a local array)");
  return false;
}
