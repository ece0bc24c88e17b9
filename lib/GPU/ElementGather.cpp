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
                            const ElementFunctions &E,
                            std::vector<unsigned> &Adjoints, unsigned &Seed,
                            std::string &WhyNot) {
  Adjoints.assign(E.Arrays.size(), 0);
  std::vector<bool> Have(E.Arrays.size(), false);
  bool HaveSeed = false;
  std::string Names;
  for (const ElementArray &A : E.Arrays)
    Names += std::string(Names.empty() ? "'" : "', '") +
             Primal.getParam(A.Param)->getName();
  Names += "'";
  for (unsigned I = Primal.getNumParams(); I < D.getNumParams(); ++I) {
    const std::string &Name = D.getParam(I)->getName();
    bool Found = false;
    for (size_t A = 0; A < E.Arrays.size(); ++A)
      if (Name == "_d_" + Primal.getParam(E.Arrays[A].Param)->getName()) {
        Adjoints[A] = I;
        Have[A] = Found = true;
      }
    if (Found)
      continue;
    if (Name == "_d_" + E.Shape.Energy->getName()) {
      Seed = I;
      HaveSeed = true;
      continue;
    }
    WhyNot = "the gradient also computes '" + Name +
             "' (gather recomputes only the adjoint of " + Names + ")";
    return false;
  }
  bool All = HaveSeed && llvm::all_of(Have, [](bool B) { return B; });
  if (!All)
    WhyNot = "the request must select " + Names + " and the energy '" +
             E.Shape.Energy->getName() + "'";
  return All;
}

namespace {

/// The locals of one DOF array in the gather kernel: its element's values,
/// their adjoints, and the vertex's sums.
struct ArrayLocals {
  const ElementArray *Array = nullptr;
  Var *Values = nullptr, *Gradient = nullptr, *Sum = nullptr;
  unsigned Adjoint = 0;
};

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
  void build(const std::vector<unsigned> &Adjoints, unsigned Seed);

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
  /// The locals of each DOF array: _xl, _gl, _sum for one array;
  /// _xl, _d_xl, _sum_x, _wl, ... for several.
  void makeLocals(const std::vector<unsigned> &Adjoints);
  /// "c, s" of \p A.
  std::string shape(const ElementArray &A) const {
    return std::to_string(E.map().Arity) + ", " + std::to_string(A.Stride);
  }
  /// The pullback's call, and the choice of the local vertex's part.
  void callPullback(BlockStmt *Out, Var *Element, const Expr *&J,
                    unsigned Seed);
  /// One incident element: gather, recompute, keep the vertex's part.
  BlockStmt *incident(Var *Incident, Var *I, unsigned Seed);

  Module &M;
  IRBuilder B;
  const Function &Primal;
  Function &D;
  const ElementFunctions &E;
  const Type *Int;
  NameScope Names;
  std::vector<ArrayLocals> Locals;
};

} // namespace

void GatherBuilder::makeLocals(const std::vector<unsigned> &Adjoints) {
  TypeContext &Types = M.getTypes();
  bool One = E.Arrays.size() == 1;
  for (size_t A = 0; A < E.Arrays.size(); ++A) {
    const ElementArray &Array = E.Arrays[A];
    std::string Name = Primal.getParam(Array.Param)->getName();
    const Type *Local = Types.getArray(
        Array.Value, static_cast<unsigned>(E.map().Arity * Array.Stride));
    ArrayLocals L;
    L.Array = &Array;
    L.Adjoint = Adjoints[A];
    L.Sum = local(One ? "_sum" : "_sum_" + Name,
                  Types.getArray(Array.Value,
                                 static_cast<unsigned>(Array.Stride)));
    L.Values = local(One ? "_xl" : "_" + Name + "l", Local);
    L.Gradient = local(One ? "_gl" : "_d_" + Name + "l", Local);
    Locals.push_back(L);
  }
}

void GatherBuilder::callPullback(BlockStmt *Out, Var *Element,
                                 const Expr *&J, unsigned Seed) {
  // The pullback's arguments: the primal's parameters but the DOF arrays
  // and E, the element, its DOFs, then the seed and the local gradients.
  std::vector<const Expr *> Args;
  for (unsigned P = 0; P < Primal.getNumParams(); ++P)
    if (Primal.getParam(P) != E.Shape.Energy &&
        llvm::none_of(E.Arrays,
                      [&](const ElementArray &A) { return A.Param == P; }))
      Args.push_back(B.ref(D.getParam(P)));
  Args.push_back(B.ref(Element));
  for (const ArrayLocals &L : Locals)
    Args.push_back(B.ref(L.Values));
  size_t Gradient = 0;
  for (size_t P = Args.size(); P < E.Gradient->getNumParams(); ++P)
    Args.push_back(E.Gradient->getParam(P)->getType()->isPointer()
                       ? B.ref(Locals[Gradient++].Gradient)
                       : B.index(B.ref(D.getParam(Seed)), B.intLit(0)));
  auto Call = [&](Function *G) {
    return M.create<ExprStmt>(
        M.create<CallExpr>(M.getTypes().getVoid(), G, Args));
  };
  if (E.Parts.empty()) {
    Out->append(Call(E.Gradient));
    return;
  }
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
        B.binary(BinaryOp::Eq, J, B.intLit(static_cast<long long>(P))), Then,
        Else);
  }
  Out->append(Chain);
}

BlockStmt *GatherBuilder::incident(Var *Incident, Var *I, unsigned Seed) {
  long long Arity = E.map().Arity;
  unsigned IndexParam = Primal.getParamIndex(E.map().IndexArray);
  BlockStmt *Out = B.block();
  Var *Slot = local("_slot", Int);
  Out->append(B.decl(Slot, B.index(B.ref(Incident), B.ref(I))));
  Var *Element = local(E.Shape.Element->getName(), Int);
  Out->append(B.decl(Element, B.binary(BinaryOp::Div, B.ref(Slot),
                                       B.intLit(Arity))));
  for (const ArrayLocals &L : Locals) {
    Out->append(B.decl(L.Values, nullptr));
    Out->append(helper("gatherElement", shape(*L.Array),
                       {B.ref(D.getParam(L.Array->Param)),
                        B.ref(D.getParam(IndexParam)), B.ref(Element),
                        B.ref(L.Values)}));
  }
  for (const ArrayLocals &L : Locals)
    Out->append(B.decl(L.Gradient, B.zero(L.Gradient->getType())));
  const Expr *J =
      B.sub(B.ref(Slot), B.mul(B.intLit(Arity), B.ref(Element)));
  callPullback(Out, Element, J, Seed);
  for (const ArrayLocals &L : Locals)
    Out->append(helper("keepVertexPart", shape(*L.Array),
                       {B.ref(L.Sum), B.ref(L.Gradient), J}));
  return Out;
}

void GatherBuilder::build(const std::vector<unsigned> &Adjoints,
                          unsigned Seed) {
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
  makeLocals(Adjoints);
  BlockStmt *Then = B.block();
  for (const ArrayLocals &L : Locals)
    Then->append(B.decl(L.Sum, B.zero(L.Sum->getType())));
  Var *I = local("_i", Int);
  const Expr *End = B.index(B.ref(Offsets), B.add(B.ref(V), B.intLit(1)));
  Then->append(M.create<ForStmt>(
      B.decl(I, B.index(B.ref(Offsets), B.ref(V))),
      B.binary(BinaryOp::Lt, B.ref(I), End),
      B.assign(B.ref(I), AssignOp::Inc, nullptr), incident(Incident, I, Seed)));
  for (const ArrayLocals &L : Locals)
    Then->append(helper("addVertexSum", std::to_string(L.Array->Stride),
                        {B.ref(D.getParam(L.Adjoint)), B.ref(V),
                         B.ref(L.Sum)}));
  Body->append(M.create<IfStmt>(
      B.binary(BinaryOp::Lt, B.ref(V), B.ref(NumVertices)), Then, nullptr));
  D.setBody(Body);
}

unsigned meshad::buildGatherKernel(Module &M, DerivedFunctionSet &Derived,
                                   const Function &Primal, Function &D,
                                   const ElementFunctions &E,
                                   const std::vector<unsigned> &Adjoints,
                                   unsigned Seed) {
  unsigned First = D.getNumParams();
  GatherBuilder(M, Primal, D, E).build(Adjoints, Seed);
  Derived.recomputeCalls(&D);
  return First;
}
