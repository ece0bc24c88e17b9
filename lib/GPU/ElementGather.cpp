//===- GPU/ElementGather.cpp - Element gradients by recomputation ---------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//

#include "GPU/ElementGather.h"
#include "IR/Builder.h"
#include "IR/NameScope.h"

using namespace meshad;
using namespace meshad::ir;

bool meshad::gatherAdjoints(const Function &Primal, const Function &D,
                            const ElementFunctions &E, const Var *X,
                            unsigned &AdjointX, unsigned &Seed,
                            std::string &WhyNot) {
  bool HaveX = false, HaveSeed = false;
  for (unsigned I = Primal.getNumParams(); I < D.getNumParams(); ++I) {
    const std::string &Name = D.getParam(I)->getName();
    if (Name == "_d_" + X->getName()) {
      AdjointX = I;
      HaveX = true;
    } else if (Name == "_d_" + E.Shape.Energy->getName()) {
      Seed = I;
      HaveSeed = true;
    } else {
      WhyNot = "the gradient also computes '" + Name +
               "' (gather recomputes only the adjoint of '" + X->getName() +
               "')";
      return false;
    }
  }
  if (!HaveX || !HaveSeed)
    WhyNot = "the request must select '" + X->getName() + "' and the energy '" +
             E.Shape.Energy->getName() + "'";
  return HaveX && HaveSeed;
}

namespace {

/// Builds the body of the gather kernel, in the order of the statements.
class GatherBuilder {
public:
  GatherBuilder(Module &M, const Function &Primal, Function &D,
                const ElementFunctions &E)
      : M(M), B(M), Primal(Primal), D(D), E(E),
        Int(M.getTypes().getInt("int")) {
    // The new body names the parameters and the pullback only (the old
    // body's locals go: the element keeps the kernel's name for it).
    for (const Var *P : D.getParams())
      Names.reserve(P->getName());
    Names.reserve(E.Gradient->getName());
  }

  /// Appends the incidence's parameters and sets the new body.
  void build(unsigned XParam, unsigned AdjointX, unsigned Seed);

private:
  Var *local(const std::string &Name, const Type *Ty) {
    return M.createVar(Names.unique(Name), Ty);
  }
  Var *param(const std::string &Name, const Type *Ty) {
    Var *P = M.createVar(Names.unique(Name), Ty, Var::Storage::Param);
    D.addParam(P);
    return P;
  }
  /// `meshad::Name<Template>(Args);`
  const Stmt *helper(const std::string &Name, const std::string &Template,
                     std::vector<const Expr *> Args) {
    return M.create<ExprStmt>(M.create<CallExpr>(
        M.getTypes().getVoid(), CallExpr::CalleeKind::Intrinsic,
        "meshad::" + Name + "<" + Template + ">", -1, std::move(Args)));
  }
  /// One incident element: gather, recompute, keep the vertex's part.
  BlockStmt *incident(Var *Incident, Var *I, Var *Sum, unsigned XParam,
                      unsigned Seed);

  Module &M;
  IRBuilder B;
  const Function &Primal;
  Function &D;
  const ElementFunctions &E;
  const Type *Int;
  NameScope Names;
};

} // namespace

BlockStmt *GatherBuilder::incident(Var *Incident, Var *I, Var *Sum,
                                   unsigned XParam, unsigned Seed) {
  long long Arity = E.map().Arity, Stride = E.Map.Stride;
  std::string Shape = std::to_string(Arity) + ", " + std::to_string(Stride);
  const Type *Local = M.getTypes().getArray(E.Value, E.numLocal());
  unsigned IndexParam = Primal.getParamIndex(E.map().IndexArray);
  BlockStmt *Out = B.block();
  Var *Slot = local("_slot", Int);
  Out->append(B.decl(Slot, B.index(B.ref(Incident), B.ref(I))));
  Var *Element = local(E.Shape.Element->getName(), Int);
  Out->append(B.decl(Element, B.binary(BinaryOp::Div, B.ref(Slot),
                                       B.intLit(Arity))));
  Var *XL = local("_xl", Local), *GL = local("_gl", Local);
  Out->append(B.decl(XL, nullptr));
  Out->append(helper("gatherElement", Shape,
                     {B.ref(D.getParam(XParam)), B.ref(D.getParam(IndexParam)),
                      B.ref(Element), B.ref(XL)}));
  Out->append(B.decl(GL, B.zero(Local)));
  // The pullback's arguments: the primal's parameters but x and E, the
  // element, its DOFs, then the seed and the local gradient.
  std::vector<const Expr *> Args;
  for (unsigned P = 0; P < Primal.getNumParams(); ++P)
    if (P != XParam && Primal.getParam(P) != E.Shape.Energy)
      Args.push_back(B.ref(D.getParam(P)));
  Args.push_back(B.ref(Element));
  Args.push_back(B.ref(XL));
  for (size_t P = Args.size(); P < E.Gradient->getNumParams(); ++P)
    Args.push_back(E.Gradient->getParam(P)->getType()->isPointer()
                       ? B.ref(GL)
                       : B.index(B.ref(D.getParam(Seed)), B.intLit(0)));
  const Expr *J =
      B.sub(B.ref(Slot), B.mul(B.intLit(Arity), B.ref(Element)));
  auto Call = [&](Function *G) {
    return M.create<ExprStmt>(
        M.create<CallExpr>(M.getTypes().getVoid(), G, Args));
  };
  if (E.Parts.empty()) {
    Out->append(Call(E.Gradient));
  } else {
    // The part of the local vertex J only: if (_j == 0) ... else ...
    Var *Local = local("_j", Int);
    Out->append(B.decl(Local, J));
    J = B.ref(Local);
    const Stmt *Chain = Call(E.Parts.back());
    for (size_t P = E.Parts.size() - 1; P-- > 0;) {
      BlockStmt *Then = B.block(), *Else = B.block();
      Then->append(Call(E.Parts[P]));
      Else->append(Chain);
      Chain = M.create<IfStmt>(
          B.binary(BinaryOp::Eq, J, B.intLit(static_cast<long long>(P))),
          Then, Else);
    }
    Out->append(Chain);
  }
  Out->append(helper("keepVertexPart", Shape, {B.ref(Sum), B.ref(GL), J}));
  return Out;
}

void GatherBuilder::build(unsigned XParam, unsigned AdjointX, unsigned Seed) {
  TypeContext &Types = M.getTypes();
  const Type *Indices = Types.getPointer(Types.getConst(Int));
  Var *Offsets = param("_offsets", Indices);
  Var *Incident = param("_incident", Indices);
  Var *NumVertices = param("_nv", Int);
  using BK = BuiltinExpr::Builtin;
  auto Builtin = [&](BK K) {
    return M.create<BuiltinExpr>(Types.getInt("unsigned int"), K, 0);
  };
  BlockStmt *Body = B.block();
  Var *V = local("_v", Int);
  Body->append(B.decl(
      V, B.cast(Int, B.add(B.mul(Builtin(BK::BlockIdx), Builtin(BK::BlockDim)),
                           Builtin(BK::ThreadIdx)))));
  BlockStmt *Then = B.block();
  Var *Sum = local("_sum", Types.getArray(E.Value, E.Map.Stride));
  Then->append(B.decl(Sum, B.zero(Sum->getType())));
  Var *I = local("_i", Int);
  const Expr *End = B.index(B.ref(Offsets), B.add(B.ref(V), B.intLit(1)));
  Then->append(M.create<ForStmt>(
      B.decl(I, B.index(B.ref(Offsets), B.ref(V))),
      B.binary(BinaryOp::Lt, B.ref(I), End),
      B.assign(B.ref(I), AssignOp::Inc, nullptr),
      incident(Incident, I, Sum, XParam, Seed)));
  Then->append(helper("addVertexSum", std::to_string(E.Map.Stride),
                      {B.ref(D.getParam(AdjointX)), B.ref(V), B.ref(Sum)}));
  Body->append(M.create<IfStmt>(
      B.binary(BinaryOp::Lt, B.ref(V), B.ref(NumVertices)), Then, nullptr));
  D.setBody(Body);
}

unsigned meshad::buildGatherKernel(Module &M, DerivedFunctionSet &Derived,
                                   const Function &Primal, unsigned XParam,
                                   Function &D, const ElementFunctions &E,
                                   unsigned AdjointX, unsigned Seed) {
  unsigned First = D.getNumParams();
  GatherBuilder(M, Primal, D, E).build(XParam, AdjointX, Seed);
  Derived.recomputeCalls(&D);
  return First;
}
