//===- AD/Hessian.cpp - Dense local Hessians ------------------------------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//

#include "AD/Hessian.h"
#include "IR/Builder.h"
#include "IR/Clone.h"
#include "IR/NameScope.h"
#include "IR/Traversal.h"

using namespace meshad;
using namespace meshad::ir;

std::string HessianLayout::key() const {
  std::string Key;
  for (const HessianBlock &Block : Blocks) {
    Key += (Key.empty() ? "" : ",") + std::to_string(Block.Param);
    if (!Block.Scalar)
      Key += "[" + std::to_string(Block.Begin) + ":" +
             std::to_string(Block.End) + "]";
  }
  return Key;
}

/// False, with an error at \p Loc, when \p F is a kernel or does not
/// return a floating-point value.
static bool isScalarFunction(const Function &F, DiagnosticSink &Diags,
                             clang::SourceLocation Loc) {
  if (F.isKernel()) {
    Diags.error(Loc, "meshad::hessian of the __global__ kernel '" +
                         F.getName() +
                         "' is not supported yet; take the Hessian of the "
                         "__device__ function that computes one element's "
                         "energy (and assemble the elements' Hessians with "
                         "meshad/runtime/SparsePattern.h), or use "
                         "meshad::hvp on the kernel");
    return false;
  }
  if (!F.getReturnType()->isFloatingScalar()) {
    Diags.error(Loc, "meshad::hessian needs a scalar function: '" +
                         F.getName() + "' returns " +
                         spellType(F.getReturnType()) +
                         ", not a floating-point value");
    return false;
  }
  return true;
}

ir::Function *HessianTransformer::deriveHessian(Function *Primal,
                                                const HessianLayout &Layout,
                                                std::string Name,
                                                clang::SourceLocation Loc) {
  auto Key = std::make_pair(static_cast<const Function *>(Primal), Layout.key());
  auto It = Done.find(Key);
  if (It != Done.end())
    return It->second;
  if (!isScalarFunction(*Primal, Diags, Loc))
    return nullptr;
  // The same name for another layout of the same parameters: numbered.
  unsigned Taken = NamesTaken[Name]++;
  if (Taken)
    Name += "_" + std::to_string(Taken);
  std::vector<bool> Selected(Primal->getNumParams(), false);
  for (const HessianBlock &Block : Layout.Blocks)
    Selected[Block.Param] = true;
  // Callees of selected arrays inlined, pointers into them offsets, small
  // constant loops unrolled: their elements become constants.
  Function *Base = prepareHessianPrimal(M, Diags, *Primal, Selected, Loc);
  if (!Base)
    return nullptr;
  // The HVP's adjoint stores become adds into H: the accumulation remarks
  // of its GPU lowering (an atomicAdd into x in a device function) say
  // nothing about the Hessian.
  bool Remarks = Diags.areRemarksEnabled();
  Diags.setRemarksEnabled(false);
  Function *H = Hvp.deriveHvp(Base, Selected, Name, Loc);
  Diags.setRemarksEnabled(Remarks);
  if (!H)
    return nullptr;
  NameScope Names;
  Names.addFunction(*H);
  Var *HParam = M.createVar(
      Names.unique("H"), M.getTypes().getPointer(Primal->getReturnType()),
      Var::Storage::Param,
      VarRoles(VarRoles::Tangent | VarRoles::Adjoint));
  if (!expandHessianLanes(M, *H, Primal->getNumParams(), Layout, HParam, Diags,
                          Loc))
    return nullptr;
  foldLaneConstants(M, *H);
  std::optional<std::set<long long>> Lower =
      keepLowerTriangle(M, *H, HParam, Layout.Size);
  HessianPatternInfo Pattern =
      Lower ? HessianPatternInfo::symmetric(Layout.Size, *Lower)
            : HessianPatternInfo::dense(Layout.Size);
  shareRepeatedEntries(M, *H, HParam, Pattern);
  Pattern.Packed = makePacked(Primal, *H, HParam, Pattern);
  std::vector<const Stmt *> Body = H->getBody()->getBody();
  Body.insert(Body.begin(), M.create<CommentStmt>(Pattern.comment()));
  H->getBody()->setBody(std::move(Body));
  Patterns[H] = std::move(Pattern);
  Done[Key] = H;
  return H;
}

/// The add `H[e] += v` of \p S, with e a constant or not; else null.
static const IndexExpr *entryAdd(const Stmt *S, const Var *H,
                                 AssignOp Op = AssignOp::AddAssign) {
  const auto *A = llvm::dyn_cast<AssignStmt>(S);
  const auto *I = A ? llvm::dyn_cast<IndexExpr>(A->getLHS()) : nullptr;
  const auto *Base = I ? llvm::dyn_cast<VarRefExpr>(I->getBase()) : nullptr;
  return Base && Base->getVar() == H && A->getOp() == Op ? I : nullptr;
}

ir::Function *HessianTransformer::makePacked(Function *Primal, Function &H,
                                             Var *HParam,
                                             const HessianPatternInfo &P) {
  Function *Packed = Derived.create(M, Primal, H.getName() + "_packed",
                                    M.getTypes().getVoid());
  Packed->setDerivativeOrder(H.getDerivativeOrder());
  // The names of H, less its zero fill's counter (the first statement).
  NameScope Names;
  for (const Var *Param : H.getParams())
    Names.reserve(Param->getName());
  for (size_t S = 1; S < H.getBody()->getBody().size(); ++S)
    Names.addStmt(H.getBody()->getBody()[S]);
  Var *Vals = M.createVar(Names.unique("vals"), HParam->getType(),
                          Var::Storage::Param, HParam->getRoles());
  std::vector<Var *> Params(H.getParams().begin(), H.getParams().end() - 1);
  Params.push_back(Vals);
  Packed->setParams(std::move(Params));
  IRBuilder B(M);
  IRCloner C(M);
  forEachStmt(H.getBody(), [&](const Stmt *S) {
    if (const auto *D = llvm::dyn_cast<DeclStmt>(S))
      C.freshVar(D->getVar());
  });
  // H[e] += v becomes vals[value of e] += v (e on or below the diagonal
  // when the pattern is symmetric; any e when it is dense: vals is H).
  C.setStmtHook([&](const Stmt *S) -> std::optional<const Stmt *> {
    const IndexExpr *I = entryAdd(S, HParam);
    if (!I)
      return std::nullopt;
    const Expr *Index = C.clone(I->getIndex());
    if (const auto *Lit = llvm::dyn_cast<IntLitExpr>(Index))
      Index = B.intLit(P.Value[Lit->getValue()]);
    return B.assign(B.index(B.ref(Vals), Index), AssignOp::AddAssign,
                    C.clone(llvm::cast<AssignStmt>(S)->getRHS()));
  });
  // The first statement fills H with zeros; the last ones copy entries to
  // their mirrors.
  const std::vector<const Stmt *> &Old = H.getBody()->getBody();
  BlockStmt *Body = B.block();
  Body->append(zeroFill(M, Names, Vals, P.NumValues));
  for (size_t S = 1; S < Old.size(); ++S)
    if (!entryAdd(Old[S], HParam, AssignOp::Assign))
      if (const Stmt *New = C.clone(Old[S]))
        Body->append(New);
  Packed->setBody(Body);
  Derived.recomputeCalls(Packed);
  return Packed;
}
