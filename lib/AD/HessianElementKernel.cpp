//===- AD/HessianElementKernel.cpp - Sparse Hessians of element kernels ---===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//

#include "AD/HessianElementKernel.h"
#include "IR/Builder.h"
#include "IR/Clone.h"
#include "IR/Intrinsics.h"
#include "IR/NameScope.h"
#include "IR/Traversal.h"

using namespace meshad;
using namespace meshad::ir;
using llvm::dyn_cast;

namespace {

/// "meshad::hessian of the kernel 'k': "
std::string prefix(const Function &K) {
  return "meshad::hessian of the kernel '" + K.getName() + "': ";
}

/// The parts of one element Hessian kernel, built in order.
struct ElementParts {
  Function *Energy = nullptr;   ///< <k>_element(params..., t, x)
  Function *Gradient = nullptr; ///< <k>_element_grad(..., x, _d_x)
  Function *Hessian = nullptr;  ///< <k>_element_hessian(..., x, H)
  const Type *Value = nullptr;  ///< T, x's element type
};

/// A call of the generated \p Callee.
const Stmt *callStmt(Module &M, Function *Callee,
                     std::vector<const Expr *> Args) {
  return M.create<ExprStmt>(
      M.create<CallExpr>(M.getTypes().getVoid(), Callee, std::move(Args)));
}

/// `Name<Arity, Stride>(Args)`, a runtime helper of meshad/ElementHessian.h.
const Stmt *helperCall(Module &M, const std::string &Name, long long Arity,
                       long long Stride, std::vector<const Expr *> Args) {
  std::string Spelled = "meshad::" + Name + "<" + std::to_string(Arity) +
                        ", " + std::to_string(Stride) + ">";
  return M.create<ExprStmt>(M.create<CallExpr>(M.getTypes().getVoid(),
                                               CallExpr::CalleeKind::Intrinsic,
                                               Spelled, -1, std::move(Args)));
}

} // namespace

namespace {

/// Builds <k>_hessian: the kernel's declarations and guard around the
/// element's gather, its three functions and meshad::assembleElement.
class AssemblyKernelBuilder {
public:
  AssemblyKernelBuilder(Module &M, Function *K, const ElementKernelShape &Shape,
                        const ElementParts &Parts)
      : M(M), B(M), C(M), K(K), Shape(Shape), Parts(Parts) {
    Names.addFunction(*K);
  }

  Function *build(DerivedFunctionSet &Derived, const Var *X,
                  const Var *Index, long long Arity, long long Stride);

private:
  /// The element functions' arguments: the kernel's parameters but x and
  /// E, the element id, then \p Local.
  std::vector<const Expr *> elementArgs(const Var *X, Var *Local,
                                        Var *Extra = nullptr);
  /// The pullback's arguments: the element function's, the seed 1, then
  /// \p Gradient for the adjoint of x.
  std::vector<const Expr *> gradientArgs(const Var *X, Var *Local,
                                         Var *Gradient);
  BlockStmt *elementBlock(const Var *X, const Var *Index, long long Arity,
                          long long Stride);

  Module &M;
  IRBuilder B;
  IRCloner C;
  Function *K;
  const ElementKernelShape &Shape;
  const ElementParts &Parts;
  NameScope Names;
  llvm::DenseMap<const Var *, Var *> Params;
  Var *Assembly = nullptr;
};

std::vector<const Expr *>
AssemblyKernelBuilder::elementArgs(const Var *X, Var *Local, Var *Extra) {
  std::vector<const Expr *> Args;
  for (Var *P : K->getParams())
    if (P != X && P != Shape.Energy)
      Args.push_back(B.ref(Params[P]));
  Args.push_back(B.ref(C.mapVar(Shape.Element)));
  Args.push_back(B.ref(Local));
  if (Extra)
    Args.push_back(B.ref(Extra));
  return Args;
}

std::vector<const Expr *>
AssemblyKernelBuilder::gradientArgs(const Var *X, Var *Local, Var *Gradient) {
  std::vector<const Expr *> Args = elementArgs(X, Local);
  for (size_t I = Args.size(); I < Parts.Gradient->getNumParams(); ++I) {
    const Type *Ty = Parts.Gradient->getParam(I)->getType();
    Args.push_back(Ty->isPointer() ? B.ref(Gradient)
                                   : B.floatLit(Ty->getUnqualified(), 1.0));
  }
  return Args;
}

BlockStmt *AssemblyKernelBuilder::elementBlock(const Var *X, const Var *Index,
                                               long long Arity,
                                               long long Stride) {
  TypeContext &Types = M.getTypes();
  unsigned N = static_cast<unsigned>(Arity * Stride);
  auto Local = [&](const char *Name, unsigned Count) {
    return M.createVar(Names.unique(Name), Types.getArray(Parts.Value, Count));
  };
  Var *XL = Local("xl", N), *GL = Local("gl", N), *HL = Local("hl", N * N);
  Var *Element = C.mapVar(Shape.Element);
  BlockStmt *Out = B.block();
  Out->append(M.create<DeclStmt>(XL, nullptr));
  Out->append(helperCall(M, "gatherElement", Arity, Stride,
                         {B.ref(Params[X]), B.ref(Params[Index]),
                          B.ref(Element), B.ref(XL)}));
  Out->append(M.create<DeclStmt>(GL, B.zero(GL->getType())));
  Out->append(callStmt(M, Parts.Gradient, gradientArgs(X, XL, GL)));
  Out->append(M.create<DeclStmt>(HL, nullptr));
  Out->append(callStmt(M, Parts.Hessian, elementArgs(X, XL, HL)));
  const Expr *Energy =
      M.create<CallExpr>(Parts.Value, Parts.Energy, elementArgs(X, XL));
  Out->append(helperCall(M, "assembleElement", Arity, Stride,
                         {B.ref(Assembly), B.ref(Params[Index]),
                          B.ref(Element), B.ref(Params[Shape.Energy]), Energy,
                          B.ref(GL), B.ref(HL)}));
  return Out;
}

Function *AssemblyKernelBuilder::build(DerivedFunctionSet &Derived,
                                       const Var *X, const Var *Index,
                                       long long Arity, long long Stride) {
  Function *W = besideKernel(M, Derived, K, K->getName() + "_hessian",
                             M.getTypes().getVoid(), CudaTarget::Global);
  W->setQualifiers(K->getQualifiers());
  std::vector<Var *> Ps;
  for (Var *P : K->getParams()) {
    Params[P] = M.createVar(P->getName(), P->getType(), Var::Storage::Param);
    Ps.push_back(Params[P]);
  }
  Assembly = M.createVar(
      Names.unique("assembly"),
      M.getTypes().getOpaque("meshad::ElementAssembly<" +
                             spellType(Parts.Value) + ">"),
      Var::Storage::Param);
  Ps.push_back(Assembly);
  W->setParams(Ps);
  C.setExprHook([&](const Expr *E) -> const Expr * {
    const auto *R = dyn_cast<VarRefExpr>(E);
    auto It = R ? Params.find(R->getVar()) : Params.end();
    return It == Params.end() ? nullptr : B.ref(It->second);
  });
  for (const Stmt *S : Shape.Pre)
    C.freshVar(llvm::cast<DeclStmt>(S)->getVar());
  if (Shape.Loop)
    C.freshVar(Shape.Element);
  BlockStmt *Body = B.block();
  for (const Stmt *S : Shape.Pre)
    Body->append(C.clone(S));
  BlockStmt *Element = elementBlock(X, Index, Arity, Stride);
  if (Shape.Loop) {
    auto *Loop = M.create<ForStmt>(C.clone(Shape.Loop->getInit()),
                                   C.clone(Shape.Loop->getCond()),
                                   C.clone(Shape.Loop->getInc()), Element);
    Loop->setLoc(Shape.Loop->getLoc());
    Body->append(Loop);
  } else if (Shape.EarlyReturn) {
    Body->append(C.clone(Shape.Guard));
    for (const Stmt *S : Element->getBody())
      Body->append(S);
  } else {
    auto *Guard = M.create<IfStmt>(C.clone(Shape.Guard->getCond()), Element,
                                   nullptr);
    Guard->setLoc(Shape.Guard->getLoc());
    Body->append(Guard);
  }
  W->setBody(Body);
  for (Function *Callee : {Parts.Energy, Parts.Gradient, Parts.Hessian})
    Derived.addCall(W, Callee);
  return W;
}

} // namespace

/// The request's remark: the map, the local pattern, the assembly.
static std::string remarkText(const Function &K, const ElementMapResult &R,
                              unsigned N, unsigned Unique) {
  std::string S = std::to_string(R.Stride);
  return "hessian of '" + K.getName() + "': " + R.describe() + ", " +
         R.Count.describe() + "; local Hessian of " + std::to_string(N) +
         " DOFs: " + std::to_string(Unique) + " unique values of " +
         std::to_string(N * N) +
         " entries; assembled by meshad::ElementHessian into block CSR (" +
         S + "x" + S +
         " blocks) or CSR: plain stores into blocks with one owner, "
         "atomicAdd into shared ones (the handle's remark() counts them), or "
         "the Deterministic option's fixed-order sums; ProjectPsd optional";
}

ir::Function *ElementHessianBuilder::derive(Function *K, unsigned XParam,
                                            clang::SourceLocation Loc) {
  auto Key = std::make_pair(static_cast<const Function *>(K), XParam);
  if (Function *Found = Done[Key])
    return Found;
  ElementFunctions Local;
  std::string Why;
  if (!Extract.extractEnergy(K, XParam, Local, Why)) {
    Diags.error(Loc, prefix(*K) + Why);
    return nullptr;
  }
  const ElementMapResult &R = Local.Map;
  const ElementMap &Map = Local.map();
  unsigned N = Local.numLocal();
  unsigned XLocal = Local.Energy->getNumParams() - 1;
  HessianLayout Layout;
  Layout.Blocks = {{XLocal, 0, N, 0, false}};
  Layout.Size = N;
  ElementParts Parts;
  Parts.Energy = Local.Energy;
  Parts.Value = Local.Value;
  Parts.Hessian = Hessian.deriveHessian(
      Parts.Energy, Layout, K->getName() + "_element_hessian", Loc);
  Parts.Gradient =
      Parts.Hessian ? Extract.derivePullback(Local, Loc) : nullptr;
  if (!Parts.Gradient)
    return nullptr;
  const Var *X = K->getParam(XParam);
  const Var *Index = Map.IndexArray;
  AssemblyKernelBuilder Builder(M, K, Local.Shape, Parts);
  Function *W = Builder.build(Derived, X, Index, Map.Arity, R.Stride);
  ElementHessianInfo &Info = Infos[W];
  Info.IndexParam = static_cast<unsigned>(K->getParamIndex(Index));
  Info.XParam = XParam;
  Info.Arity = Map.Arity;
  Info.Stride = R.Stride;
  Info.Count = R.Count.Count;
  const HessianPatternInfo *P = Hessian.patternOf(Parts.Hessian);
  Diags.remark(Loc, remarkText(*K, R, N, P ? P->NumValues : N * N));
  Done[Key] = W;
  return W;
}
