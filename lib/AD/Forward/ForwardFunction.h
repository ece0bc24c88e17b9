//===- AD/Forward/ForwardFunction.h - Forward mode of one function --*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Private to the forward-mode transformer: the state of deriving one
/// function. Statements are handled in ForwardStmt.cpp, expressions in
/// ForwardExpr.cpp.
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_TRANSFORM_FORWARDFUNCTION_H
#define MESHAD_TRANSFORM_FORWARDFUNCTION_H

#include "AD/Analysis/Activity.h"
#include "IR/Builder.h"
#include "IR/NameScope.h"
#include "AD/Forward/ForwardMode.h"

#include "llvm/ADT/DenseMap.h"

#include <memory>

namespace meshad {

struct ThrustRecipe;

/// A primal value and its tangent; a null tangent is a structural zero.
struct Dual {
  const ir::Expr *P = nullptr;
  const ir::Expr *T = nullptr;
};

/// Derives one function in forward mode into an already created
/// ir::Function (whose name, return type and target are set).
class ForwardFunction {
public:
  enum class Flavor { Request, Pushforward };

  ForwardFunction(ForwardModeTransformer &Owner, ir::Module &M,
                  DiagnosticSink &Diags, DerivedFunctionSet &Derived,
                  ir::Function *Primal, ir::Function *Result,
                  std::vector<ParamSeed> Seeds, Flavor Kind);

  /// Adds parameters and builds the body. False after errors.
  bool run();

  /// The parameter seeds after the activity analysis (written pointer
  /// parameters of requests get Tangent seeds).
  const std::vector<ParamSeed> &getSeeds() const { return Seeds; }

private:
  // Setup (ForwardFunction.cpp).
  bool computeActivity();
  void addParameters();
  void seedLocals(ir::BlockStmt *Out);

  // Statements (ForwardStmt.cpp).
  void deriveBlock(const ir::BlockStmt *In, ir::BlockStmt *Out);
  void deriveStmt(const ir::Stmt *S, ir::BlockStmt *Out);
  void deriveDecl(const ir::DeclStmt *D, ir::BlockStmt *Out);
  void deriveAssign(const ir::AssignStmt *A, ir::BlockStmt *Out);
  void deriveExprStmt(const ir::ExprStmt *S, ir::BlockStmt *Out);
  /// A Thrust call \p C (statement \p S) with its tangent from the recipe.
  void deriveThrustStmt(const ir::ExprStmt *S, const ir::CallExpr *C,
                        ir::BlockStmt *Out);
  /// A linear atomic \p C (statement \p S): the tangent memory
  /// accumulates the tangent of the value, then the primal add.
  void deriveAtomicAdd(const ir::ExprStmt *S, const ir::CallExpr *C,
                       ir::BlockStmt *Out);
  void deriveReturn(const ir::ReturnStmt *R, ir::BlockStmt *Out);
  /// meshad::push(T, v): v's tangent goes on T's tangent tape.
  void deriveTapePush(const ir::ExprStmt *S, ir::BlockStmt *Out);
  /// meshad::newArray(&p, n) / deleteArray(p): the same call on the
  /// tangent buffer beside it.
  void deriveAllocation(const ir::ExprStmt *S, ir::BlockStmt *Out);
  const ir::Stmt *deriveLoop(const ir::Stmt *S);
  const ir::BlockStmt *deriveSubBlock(const ir::BlockStmt *In);
  bool needsTangent(const ir::Stmt *LoopPart);
  /// An active pointer \p V set to \p Value takes its shadow \p Shadow
  /// (its tangent memory); false, after an error at \p Loc, when \p Value
  /// is not a null pointer and has none (dynamic shared memory, a pointer
  /// returned by a call).
  /// The tangent of the dynamic shared memory that \p D declares (the upper
  /// half of the derived kernel's); null after an error (HVPs).
  const ir::Expr *sharedShadow(const ir::DeclStmt *D);
  bool checkShadow(const ir::Var *V, const ir::Expr *Value,
                   const ir::Expr *Shadow, clang::SourceLocation Loc);

  // Expressions (ForwardExpr.cpp). A null Out forbids hoisting (inside ?:).
  Dual derive(const ir::Expr *E, ir::BlockStmt *Out);
  Dual deriveVarRef(const ir::VarRefExpr *E);
  Dual deriveUnary(const ir::UnaryExpr *E, ir::BlockStmt *Out);
  Dual deriveBinary(const ir::BinaryExpr *E, ir::BlockStmt *Out);
  Dual deriveConditional(const ir::ConditionalExpr *E);
  Dual deriveIndex(const ir::IndexExpr *E, ir::BlockStmt *Out);
  Dual deriveMember(const ir::MemberExpr *E, ir::BlockStmt *Out);
  Dual deriveCast(const ir::CastExpr *E, ir::BlockStmt *Out);
  Dual deriveInitList(const ir::InitListExpr *E, ir::BlockStmt *Out);
  Dual deriveCall(const ir::CallExpr *C, ir::BlockStmt *Out);
  Dual deriveMathCall(const ir::CallExpr *C, ir::BlockStmt *Out);
  Dual deriveIntrinsicCall(const ir::CallExpr *C, ir::BlockStmt *Out);
  /// \p E, the application of rule \p Id (Rules/DerivativeRules.h) to
  /// operands whose primals and tangents are \p Ops: the tangent is the sum
  /// of the rule's partials times the operands' tangents; the primal is E
  /// over the operands' primals (hoisted where the partials read them).
  Dual deriveByRule(const ir::Expr *E, int Id, std::vector<Dual> Ops,
                    ir::BlockStmt *Out);
  /// The tangent update of the compound assignment \p A (whose right-hand
  /// side \p R is derived, its primal hoisted here where the partials read
  /// it): appended to \p Out, or returned as the target's new tangent.
  const ir::Expr *compoundTangent(const ir::AssignStmt *A, Dual &R,
                                  const ir::Expr *TL, ir::BlockStmt *Out);
  /// User calls; \p AsStmt appends the call as a statement instead of
  /// returning its value.
  /// \p E, or, when it is a user call whose value carries no derivative,
  /// the primal value of its pushforward (which still writes tangents
  /// through pointer arguments).
  const ir::Expr *derivePrimalCall(const ir::Expr *E, ir::BlockStmt *Out);
  Dual deriveUserCall(const ir::CallExpr *C, ir::BlockStmt *Out, bool AsStmt);
  /// The duals of the arguments of the user call \p C (into \p Args, their
  /// tangents' declarations into \p Out) and which of them the pushforward
  /// takes a tangent of (\p Active). False after an error (an active
  /// struct passed to an opaque parameter).
  bool deriveCallArgs(const ir::CallExpr *C, ir::BlockStmt *Out,
                      std::vector<Dual> &Args, std::vector<bool> &Active);
  /// The local arrays of \p C's arguments that carry derivatives through
  /// the call without tangents of their own get a zeroed local tangent
  /// array declared in \p Out and become active.
  void forceLocalTangents(const ir::CallExpr *C, std::vector<Dual> &Args,
                          std::vector<bool> &Active, ir::BlockStmt *Out);
  /// Thrust primitives (ForwardThrust.cpp): the recipe of \p C or null,
  /// and the tangent call of \p C (null when nothing carries a derivative
  /// or after an error).
  static const ThrustRecipe *thrustRecipe(const ir::CallExpr *C);
  /// The CUDA runtime calls that manage device buffers in host code
  /// (ForwardCudaRuntime.cpp): the call, then the same on the tangent
  /// buffer. False for other calls.
  bool deriveCudaRuntimeStmt(const ir::ExprStmt *S, const ir::CallExpr *C,
                             ir::BlockStmt *Out);
  /// The helpers of meshad/codegen/ThrustAdjoint.h that a gradient calls
  /// (`meshad::thrust_ad::...`), in forward mode over it: Hessian-vector
  /// products (ForwardThrustHvp.cpp).
  static bool isThrustRuntimeCall(const ir::CallExpr *C);
  /// The tangent of such a call: the adjoint helper's from the
  /// AdjointTangent column of Rules/ThrustRecipes.def, the save or restore
  /// of the tangent range beside a saved range, the permutation of the
  /// tangents beside a recorded sort. Null when nothing it reads carries a
  /// derivative, or after an error.
  const ir::Expr *thrustRuntimeTangent(const ir::CallExpr *C);
  /// Statement form: the tangent call before \p S (after it for a
  /// recording helper, whose permutation it reads).
  void deriveThrustRuntimeStmt(const ir::ExprStmt *S, const ir::CallExpr *C,
                               ir::BlockStmt *Out);
  const ir::Expr *thrustAdjointTangent(const ir::CallExpr *C,
                                       const ThrustRecipe &R);
  /// A user functor's pullback \p Pullback, bound as an adjoint helper
  /// gets it: appends its pushforward, bound alike, and the tangents of
  /// its captures (`meshad::thrust_ad::captureTangents(...)`) to \p Args;
  /// sets \p Reads when a capture has a tangent. False after an error.
  /// The argument \p A of the adjoint helper's call \p C that adds to a
  /// capture's adjoint: appends the tangent's address (or nullptr) to \p
  /// Args, or, where the tangent helper replaces the adjoint helper
  /// (for_each), \p A and its tangent (setting \p Reads). False after an
  /// error.
  bool thrustCaptureAdjointTangent(const ir::CallExpr *C,
                                   const ThrustRecipe &R, const ir::Expr *A,
                                   std::vector<const ir::Expr *> &Args,
                                   bool &Reads);
  bool thrustFunctorPullbackTangent(const ir::CallExpr *Pullback,
                                    std::vector<const ir::Expr *> &Args,
                                    bool &Reads);
  /// The TangentHelper call that permutes the tangents of what the
  /// recording helper's call \p Recording sorted (null: none has one).
  const ir::Expr *thrustPermutedTangents(const ir::CallExpr *Recording,
                                         const ThrustRecipe &R);
  /// Forward mode of a primitive whose Tangent is "record" (sort_by_key):
  /// the recording helper's call, into a local declared in \p Out,
  /// replaces \p C; returns the call that permutes the tangents.
  const ir::Expr *thrustRecordedTangent(const ir::CallExpr *C,
                                        const ThrustRecipe &R,
                                        ir::BlockStmt *Out);
  /// The saved tangent of the range that \p Saved (a `Saved<T>` local)
  /// holds, or `meshad::thrust_ad::NoTangent()`.
  const ir::Expr *thrustSavedTangent(const ir::Expr *Saved);
  const ir::Expr *thrustTangent(const ir::CallExpr *C, ir::BlockStmt *Out);
  /// The tangent of a linear primitive (Tangent "same" or "fill") whose
  /// arguments' primals and tangents are \p Args: the same call on the
  /// tangents, or a fill of the output's tangent.
  const ir::Expr *thrustLinearTangent(const ir::CallExpr *C,
                                      const ThrustRecipe &R,
                                      const std::vector<Dual> &Args);
  /// `thrust::fill` of the output's tangent with the scalar's tangent
  /// (sequence; the ranges read carry none) or zero; a reduction's: the
  /// init's tangent.
  const ir::Expr *thrustFillTangent(const ir::CallExpr *C,
                                    const ThrustRecipe &R,
                                    const std::vector<Dual> &Args, int OutArg);
  /// The recipe's TangentHelper called on the primal values and tangents
  /// (a nonlinear functor, an extremum, a user functor).
  const ir::Expr *thrustHelperTangent(const ir::CallExpr *C,
                                      const ThrustRecipe &R,
                                      const std::vector<Dual> &Args);
  /// The pushforward of the user functor \p F bound like \p F; the
  /// tangents of the captures it derives are added to \p Tangents. Null
  /// after an error.
  const ir::Expr *
  thrustPushforwardFunctor(const ir::CallExpr *F,
                           std::vector<const ir::Expr *> &Tangents);

  /// The tangent lvalue of a store target (_d_x, _d_a[i], _d_v.x); null
  /// after reporting an error.
  const ir::Expr *tangentLValue(const ir::Expr *LHS);
  /// The tangent variable of the variable \p Ref writes; null after an
  /// error (a global, an input differentiated w.r.t. one element).
  const ir::Expr *tangentVarLValue(const ir::VarRefExpr *Ref);
  /// The tangent variable of an active variable (created on first use).
  ir::Var *tangentVar(ir::Var *V);
  /// Stores \p E in a fresh temporary when it is not cheap to repeat.
  const ir::Expr *hoist(const ir::Expr *E, ir::BlockStmt *Out);
  bool isActive(const ir::Expr *E) const {
    return Activity->isActive(E);
  }
  /// A temporary name ("_t0", "_t1"...) that the primal does not use.
  std::string freshTempName();
  const ParamSeed *seedOf(const ir::Var *V) const;
  void error(clang::SourceLocation Loc, const std::string &Msg);

  ForwardModeTransformer &Owner;
  ir::Module &M;
  ir::IRBuilder B;
  DiagnosticSink &Diags;
  DerivedFunctionSet &Derived;
  ir::Function *Primal;
  ir::Function *Result;
  std::vector<ParamSeed> Seeds;
  Flavor Kind;
  std::unique_ptr<ActivityAnalysis> Activity;
  llvm::DenseMap<const ir::Var *, ir::Var *> Tangents;
  /// A declaration's initializer and its variable: where a partial reads
  /// the initializer's result, it reads the variable, declared first.
  const ir::Expr *KeptInit = nullptr;
  const ir::Expr *KeptVar = nullptr;
  bool KeptVarUsed = false;
  /// Every name of the generated function: the user's and the generated.
  ir::NameScope Names;
  bool Failed = false;
  bool SharedShadowRejected = false;
};

} // namespace meshad

#endif // MESHAD_TRANSFORM_FORWARDFUNCTION_H
