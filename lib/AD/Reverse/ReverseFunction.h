//===- AD/Reverse/ReverseFunction.h - Reverse mode of one function --*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Private to the reverse-mode transformer: the state of deriving one
/// function. Setup and declarations are in ReverseMode.cpp, statements in
/// ReverseStmt.cpp, loops in ReverseLoops.cpp, expression adjoints in
/// ReverseExpr.cpp.
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_TRANSFORM_REVERSEFUNCTION_H
#define MESHAD_TRANSFORM_REVERSEFUNCTION_H

#include "AD/Analysis/Activity.h"
#include "AD/Reverse/DeviceBufferHistory.h"
#include "AD/Analysis/ReverseNeeds.h"
#include "IR/Builder.h"
#include "IR/NameScope.h"
#include "AD/Analysis/InvertibleUpdates.h"
#include "AD/Analysis/Recomputation.h"
#include "GPU/LowerAccumulations.h"
#include "AD/Reverse/ReverseMode.h"

#include "llvm/ADT/DenseMap.h"

#include <functional>
#include <initializer_list>
#include <memory>

namespace meshad {

struct ThrustRecipe;

/// Derives one function in reverse mode into an already created function.
class ReverseFunction {
public:
  enum class Flavor { Gradient, Pullback };

  ReverseFunction(ReverseModeTransformer &Owner, ir::Module &M,
                  DiagnosticSink &Diags, DerivedFunctionSet &Derived,
                  ir::Function *Primal, ir::Function *Result,
                  std::vector<bool> Selected, Flavor Kind,
                  clang::SourceLocation RequestLoc,
                  std::vector<bool> Private = {});

  bool run();

  /// meshad::KeepSeeds: the seeds of outputs that the kernel only writes
  /// are read, never reset.
  void setKeepSeeds(bool Keep) { KeepSeeds = Keep; }
  /// Adjoint stores become AssignOp::Accumulate, lowered later.
  void setUnlowered(bool U) { Unlowered = U; }
  /// meshad::WithValue: the gradient also leaves the primal's results: it
  /// returns the primal's return value and keeps the stores to outputs
  /// that the kernel only writes (ReverseValue.cpp).
  void setWithValue(bool W) { WithValue = W; }
  /// meshad::AfterPrimal: loops whose final state the primal stores are
  /// not run again (ForwardFromOutputs.h).
  void setAfterPrimal(bool A) { AfterPrimal = A; }

private:
  // Setup and declarations (ReverseMode.cpp).
  bool prepare();
  bool checkOutputs();
  void hoistDeclarations(const ir::Stmt *S);
  void addParameters();
  void zeroSharedAdjoints(ir::BlockStmt *Out);
  /// Runs the GPU passes that finish a function of reverse mode
  /// (GPU/GpuPasses.h: the lowering of its Accumulates, and on a gradient
  /// kernel gathers for the tiles, exclusive adds) on the finished function,
  /// with what they need to know of it; false after an internal error.
  bool finish();
  ir::Var *adjointVar(ir::Var *V);
  /// The marker of where region \p R begins or ends (IR/IR.h, MarkerStmt).
  const ir::Stmt *marker(ir::MarkerStmt::Region R);
  /// The function's body: the declarations (ending with the marker
  /// SetupEnd), the zeroing of shared adjoints, the forward sweep, the
  /// reverse sweep and the epilogue in \p Regions, each of the last four
  /// followed by its marker (ForwardBegin ... EpilogueEnd).
  ir::BlockStmt *assemble(std::initializer_list<ir::BlockStmt *> Regions);
  ir::Var *newVar(const std::string &Prefix, const ir::Type *Ty,
                  const ir::Expr *Init = nullptr);
  std::string freshName(const std::string &Prefix);
  void error(clang::SourceLocation Loc, const std::string &Msg);

  // Statements (ReverseStmt.cpp).
  void sweepBlock(const ir::BlockStmt *In, ir::BlockStmt *Fwd,
                  ir::BlockStmt *Rev);
  void sweepStmt(const ir::Stmt *S, ir::BlockStmt *Fwd, ir::BlockStmt *Rev);
  void sweepStmtKind(const ir::Stmt *S, ir::BlockStmt *Fwd,
                     ir::BlockStmt *Rev);
  void sweepDecl(const ir::DeclStmt *D, ir::BlockStmt *Fwd,
                 ir::BlockStmt *Rev);
  /// `T Target[N] = {...}`: the listed elements, then zeros for the rest.
  void sweepInitList(const ir::Expr *Target, const ir::InitListExpr *List,
                     clang::SourceLocation Loc, ir::BlockStmt *Fwd,
                     ir::BlockStmt *Rev);
  /// Zeroes Target[From..N) (nested arrays whole), saving what the reverse
  /// sweep reads and resetting adjoints in loops. \p Repeat: how many
  /// times the enclosing zeroing loops run this one (tape capacities).
  void zeroTail(const ir::Expr *Target, unsigned From, ir::BlockStmt *Fwd,
                ir::BlockStmt *Rev, unsigned Repeat = 1);
  /// The forward-sweep half of an assignment: saves what it overwrites
  /// (into \p Restore, replayed by the reverse sweep) and the store.
  void sweepPrimalStore(const ir::Expr *LHS, ir::AssignOp Op,
                        const ir::Expr *RHS, bool IsDecl,
                        clang::SourceLocation Loc, ir::BlockStmt *Fwd,
                        ir::BlockStmt *Restore);
  void sweepAssign(const ir::Expr *LHS, ir::AssignOp Op, const ir::Expr *RHS,
                   bool IsDecl, clang::SourceLocation Loc, ir::BlockStmt *Fwd,
                   ir::BlockStmt *Rev);
  /// The reverse-sweep half of an assignment: the adjoints of its
  /// right-hand side (\p Holder: a local that holds its value).
  void sweepAssignAdjoint(const ir::Expr *LHS, ir::AssignOp Op,
                          const ir::Expr *RHS, bool IsDecl,
                          clang::SourceLocation Loc, ir::Var *Holder,
                          ir::BlockStmt *Rev);
  /// The adjoint of a plain store `LHS = RHS` from the seed \p DE read
  /// from \p AL, the adjoint of LHS: RHS's adjoint (a user call's
  /// pullback) and, unless \p ResetDead, AL's reset, before it or, where
  /// RHS does not read the stored-to array, after it.
  void storeAdjoint(const ir::Expr *LHS, const ir::Expr *RHS,
                    const ir::Expr *AL, const ir::Expr *DE, bool ResetDead,
                    bool Seed, clang::SourceLocation Loc, ir::Var *Holder,
                    ir::BlockStmt *Rev);
  /// Appends `AL = 0` to \p Rev, marked as a seed reset (at \p Loc) where
  /// \p Seed: the store is to an element of a parameter's memory.
  void appendAdjointReset(const ir::Expr *AL, bool Seed,
                          clang::SourceLocation Loc, ir::BlockStmt *Rev);
  /// An assignment to an active pointer variable (a copy or arithmetic).
  void sweepPointerAssign(const ir::Expr *LHS, ir::AssignOp Op,
                          const ir::Expr *RHS, bool IsDecl,
                          clang::SourceLocation Loc, ir::BlockStmt *Fwd,
                          ir::BlockStmt *Rev);
  void sweepExprStmt(const ir::ExprStmt *S, ir::BlockStmt *Fwd,
                     ir::BlockStmt *Rev);
  void sweepIf(const ir::IfStmt *I, ir::BlockStmt *Fwd, ir::BlockStmt *Rev);
  /// The flag of \p I's branch in the reverse sweep: recomputed when its
  /// condition is (isRecomputable), one flag per loop for a break out of an
  /// outermost loop (cleared in \p ClearAfter once replayed), else taped.
  ir::Var *branchFlag(const ir::IfStmt *I, ir::BlockStmt *Fwd,
                      ir::BlockStmt *Replay, ir::BlockStmt *ClearAfter);
  /// Inside counted loops: true when the reverse sweep can evaluate \p E
  /// again (loop counters, recomputed locals, values and memory that do not
  /// change in the loop).
  bool isRecomputable(const ir::Expr *E) const;
  /// A declaration of a block in a counted loop that the reverse sweep
  /// recomputes instead of taping, after the reverse of statement After of
  /// the block (-1: before the block's reverse begins).
  struct LateRecomputation {
    const ir::DeclStmt *Decl;
    int After;
  };
  /// The declarations of \p In (in a counted loop) recomputed in reverse:
  /// their values read only recomputable values and locals that the reverse
  /// sweep restores, each written at most once later in the block by a
  /// statement of the block itself; recomputed once those are restored.
  std::vector<LateRecomputation> lateRecomputations(const ir::BlockStmt *In);
  /// Where (as for LateRecomputation::After) the declaration at \p Pos of
  /// \p In can be recomputed, or nullopt.
  std::optional<int> recomputePoint(const ir::BlockStmt *In, size_t Pos,
                                    const llvm::DenseMap<const ir::Var *, int>
                                        &Late);
  /// Saves the value of \p LValue in the forward sweep and restores it in
  /// the reverse sweep (into \p Restore). In a loop the value goes on a
  /// tape that the caller pushes \p Pushes times per iteration.
  void save(const ir::Expr *LValue, ir::BlockStmt *Fwd, ir::BlockStmt *Restore,
            unsigned Pushes = 1);
  /// The tape of \p Elem for a push made \p Pushes times per iteration of
  /// the loops being swept: its capacity (known when their trip counts are
  /// constants) and its placement (from where the function runs).
  const ir::Type *tapeType(const ir::Type *Elem, unsigned Pushes) const;
  bool needsSave(const ir::Expr *LValue, bool IsDecl) const;
  /// In a loop: restores what `LHS Op RHS` overwrites by its inverse
  /// (`T /= 1 - alpha`) in \p Restore instead of a tape when
  /// InvertibleUpdates proves it safe, checked in \p Fwd at run time
  /// (meshad::checkUndoable); remarks which was chosen and why.
  bool undoUpdate(const ir::Expr *LHS, ir::AssignOp Op, const ir::Expr *RHS,
                  clang::SourceLocation Loc, ir::BlockStmt *Fwd,
                  ir::BlockStmt *Restore);
  /// Saves the arrays a user call may overwrite that the reverse sweep
  /// reads, restoring them (into \p Restore) before its pullback runs.
  /// Returns the call the forward sweep makes instead of \p C (its
  /// recording variant, when memory of unknown size must be logged).
  const ir::CallExpr *saveCalleeWrites(const ir::CallExpr *C,
                                       ir::BlockStmt *Fwd,
                                       ir::BlockStmt *Restore);
  /// The call of \p C's recording variant, marking the undo log before it
  /// (null after an error); rolls the log back into \p Restore and
  /// \p Again.
  const ir::CallExpr *logCalleeWrites(const ir::CallExpr *C,
                                      ir::BlockStmt *Fwd,
                                      ir::BlockStmt *Restore,
                                      ir::BlockStmt *Again);
  /// The log of the recording callees' overwrites, once one is needed.
  ir::Var *UndoLog = nullptr;
  /// Copies the local array \p Root before a call that overwrites it, and
  /// restores it from the copy into \p Restore and \p Again.
  void saveArrayAroundCall(ir::Var *Root, ir::BlockStmt *Fwd,
                           ir::BlockStmt *Restore, ir::BlockStmt *Again);
  /// Per user call whose callee overwrites memory the reverse sweep needs:
  /// the restores that follow its pullback.
  llvm::DenseMap<const ir::CallExpr *, ir::BlockStmt *> RestoreAfter;
  /// `for (int k = 0; k < Count; ++k) Body(k)` as IR.
  const ir::Stmt *forEachElement(
      unsigned Count, bool Backwards,
      const std::function<const ir::Stmt *(const ir::Expr *)> &Body);
  /// Records \p Value (a branch flag, a trip count) in the forward sweep;
  /// returns a variable that holds it again in the reverse sweep after the
  /// statements appended to \p Replay.
  ir::Var *record(const ir::Expr *Value, const std::string &Prefix,
                  ir::BlockStmt *Fwd, ir::BlockStmt *Replay);

  // Host code that drives the GPU (ReverseHost.cpp).
  void sweepLaunch(const ir::LaunchStmt *L, ir::BlockStmt *Fwd,
                   ir::BlockStmt *Rev);
  /// Handles cudaMalloc/cudaFree/cudaMemcpy/cudaMemset; \p Original is the
  /// statement to keep in the forward sweep. False for other calls.
  bool sweepCudaApi(const ir::CallExpr *C, const ir::Stmt *Original,
                    ir::BlockStmt *Fwd, ir::BlockStmt *Rev);
  void findDeferredFrees(const ir::Stmt *S);
  /// meshad::newArray / deleteArray (`new T[n]` of a run-time size): the
  /// zeroed adjoint buffer allocated beside the primal's, both released at
  /// the end of the reverse sweep (ReverseHeap.cpp).
  void sweepHeapArray(const ir::CallExpr *C, const ir::Stmt *Original,
                      ir::BlockStmt *Fwd, ir::BlockStmt *Rev);
  /// Host code: finds the buffers a launch's gradient needs restored
  /// (DeviceBufferHistory) and declares the snapshot stack if any may be.
  void prepareSnapshots();
  /// Copies the buffers \p Grad reads that are overwritten from \p L on
  /// into the snapshot stack before \p L (\p Fwd) and restores them
  /// before the gradient's launch (\p Rev). False after an error.
  bool snapshotLaunch(const ir::LaunchStmt *L, const ir::Function &Grad,
                      ir::BlockStmt *Fwd, ir::BlockStmt *Rev);
  /// The number of elements of argument \p I of \p L to copy: the range
  /// the launch accesses (AD/Reverse/ReverseHostRanges.h), or null for the
  /// whole allocation that holds it.
  const ir::Expr *snapshotCount(const ir::LaunchStmt *L, unsigned I);
  /// The remark for a copy of \p Root before \p L (\p Count elements, or
  /// the whole allocation when null).
  void remarkSnapshot(const ir::LaunchStmt *L, const ir::Var *Root,
                      const ir::Expr *Count, const ir::Function &Grad);
  /// Launches whose buffer arguments may be the same memory (`k(x, x)`):
  /// the gradient kernel would reset the adjoint it just accumulated into,
  /// or add to one element from two threads. Replaces in \p Args the
  /// adjoint of each such argument that \p L's kernel only reads by a
  /// zeroed shadow buffer (before the gradient launch, \p Rev) and folds
  /// the shadows back after it (\p After). False after an error.
  bool shadowAliasedAdjoints(const ir::LaunchStmt *L,
                             const std::vector<bool> &Active,
                             std::vector<const ir::Expr *> &Args,
                             ir::BlockStmt *Rev, ir::BlockStmt *After);
  /// Replaces \p DP, the adjoint of argument \p I of \p L (memory that may
  /// be \p Buffer's, like another argument's), by a zeroed shadow buffer
  /// declared in \p Rev and folded back into DP in \p After.
  void shadowAdjointArg(const ir::LaunchStmt *L, unsigned I,
                        const ir::Var *Buffer, const ir::Expr *&DP,
                        ir::BlockStmt *Rev, ir::BlockStmt *After);
  /// Per argument of \p L: whether its parameter carries a derivative
  /// and the argument is active (none: the launch has no gradient).
  std::vector<bool> activeLaunchArgs(const ir::LaunchStmt *L);
  /// Scalar launch arguments and the device scalars their adjoints are
  /// summed into by the gradient kernel.
  using DeviceScalarAdjoints =
      std::vector<std::pair<const ir::Expr *, ir::Var *>>;
  /// Appends to \p Args the adjoint argument of each active argument of
  /// \p L: a buffer's adjoint pointer, a scalar's device scalar (declared
  /// in \p Rev, listed in \p Scalars).
  void appendLaunchAdjoints(const ir::LaunchStmt *L,
                            const std::vector<bool> &Active,
                            std::vector<const ir::Expr *> &Args,
                            DeviceScalarAdjoints &Scalars, ir::BlockStmt *Rev);
  /// The launch of \p Grad for \p L with \p Args (its dynamic shared
  /// memory doubled where the gradient keeps a shadow there).
  ir::LaunchStmt *gradientLaunch(const ir::LaunchStmt *L, ir::Function *Grad,
                                 const std::vector<const ir::Expr *> &Args);
  /// After the gradient launch: each scalar argument's adjoint += its
  /// device scalar, read back (\p Rev).
  void addDeviceScalarAdjoints(const DeviceScalarAdjoints &Scalars,
                               ir::BlockStmt *Rev);
  std::unique_ptr<DeviceBufferHistory> History;
  /// meshad::cuda::DeviceSnapshots of the host function, once needed.
  ir::Var *Snapshots = nullptr;

  // Thrust primitives (ReverseThrust.cpp; Rules/ThrustRecipes.def).
  /// The recipe of a call of a Thrust primitive, or null.
  static const ThrustRecipe *thrustRecipe(const ir::Expr *E);
  bool anyActiveArg(const ir::CallExpr *C) const;
  /// Saves what the adjoint of \p C reads into \p Fwd; returns the call
  /// the forward sweep makes (\p C or the recipe's recording helper).
  const ir::CallExpr *thrustForward(const ir::CallExpr *C,
                                    ir::BlockStmt *Fwd);
  /// The recipe's adjoint helper; \p DE seeds a reduction's result.
  void thrustAdjoint(const ir::CallExpr *C, const ir::Expr *DE,
                     ir::BlockStmt *Rev);
  /// The adjoint helper's arguments per letter of \p R into \p Args, the
  /// saved inputs after them into \p Tail, the user functor's captures
  /// into \p Captures (their adjoint locals declared in \p Rev); returns
  /// the scalar argument (null if none) through \p ScalarArg. False after
  /// an error.
  bool thrustAdjointArgs(
      const ir::CallExpr *C, const ThrustRecipe &R,
      std::vector<const ir::Expr *> &Args,
      std::vector<const ir::Expr *> &Tail,
      std::vector<std::pair<const ir::Expr *, ir::Var *>> &Captures,
      const ir::Expr *&ScalarArg, ir::BlockStmt *Rev);
  /// The adjoints of a user functor's captures, for the helper's tail: a
  /// captured pointer's adjoint, a captured number's local (one slot per
  /// index of a for_each, summed). False after an error.
  bool thrustCaptureAdjoints(
      const ir::CallExpr *C, const ThrustRecipe &R, const ir::Expr *N,
      const std::vector<std::pair<const ir::Expr *, ir::Var *>> &Captures,
      std::vector<const ir::Expr *> &Tail);
  /// Copies the allocations of the pointers that the lambda of a for_each
  /// over counting iterators captures (restored around its adjoint).
  void snapshotCaptures(const ir::CallExpr *C, const ThrustRecipe &R,
                        ir::BlockStmt *Fwd);
  const ir::Expr *thrustAdjointPointer(const ir::Expr *Arg);
  /// The pullback of the user functor \p F bound like \p F, for the
  /// adjoint helper; the adjoints of the captures it derives come back
  /// through locals declared in \p Rev, added to \p Captures (capture,
  /// local). Null after an error.
  const ir::Expr *thrustPullbackFunctor(
      const ir::CallExpr *F,
      std::vector<std::pair<const ir::Expr *, ir::Var *>> &Captures,
      ir::BlockStmt *Rev);
  /// Saves the outputs of \p C whose contents the reverse sweep reads
  /// (restored after the call's adjoint, ThrustRestores).
  void saveOverwritten(const ir::CallExpr *C, const ThrustRecipe &R,
                       const ir::Expr *N, ir::BlockStmt *Fwd);
  /// Per Thrust call: (copy, output) of the outputs it overwrites.
  llvm::DenseMap<const ir::CallExpr *,
                 std::vector<std::pair<ir::Var *, const ir::Expr *>>>
      ThrustRestores;
  /// An error when \p E calls a primitive that returns an iterator (copy,
  /// transform...) for its value: reverse mode sweeps those as statements.
  bool rejectThrustIterator(const ir::Expr *E, clang::SourceLocation Loc);
  void sweepThrust(const ir::CallExpr *C, const ir::ExprStmt *S,
                   ir::BlockStmt *Fwd, ir::BlockStmt *Rev);
  /// Per Thrust call: the copies its forward sweep saved, in argument
  /// order, the permutation of a sort last.
  llvm::DenseMap<const ir::CallExpr *, std::vector<ir::Var *>> ThrustSaved;

  // Loops (ReverseLoops.cpp).
  /// Per loop being swept, outermost first: a bound on its trip count, 0
  /// when unknown.
  std::vector<unsigned> TripBounds;
  void sweepLoop(const ir::Stmt *S, ir::BlockStmt *Fwd, ir::BlockStmt *Rev);
  /// The declarations of \p Redo that the reverse iteration recomputes:
  /// of the values it reads, and of those that their recomputations read.
  std::vector<const ir::DeclStmt *>
  neededRecomputations(const std::vector<const ir::DeclStmt *> &Redo);
  void sweepCanonicalFor(const ir::ForStmt *F, const CanonicalLoop &C,
                         ir::BlockStmt *Fwd, ir::BlockStmt *Rev);

  // Expression adjoints (ReverseExpr.cpp).
  /// Accumulates \p DE into the adjoints of what \p E reads. \p Result,
  /// where given, holds E's value (ReverseNeeds::getResultHolder).
  void adjoint(const ir::Expr *E, const ir::Expr *DE, ir::BlockStmt *Rev,
               const ir::Expr *Result = nullptr);
  void adjointCall(const ir::CallExpr *C, const ir::Expr *DE,
                   ir::BlockStmt *Rev, const ir::Expr *Result);
  /// The adjoints of the operands \p Ops of an application of rule \p Id
  /// (Rules/DerivativeRules.h) at type \p Ty: \p DE times each partial.
  void adjointByRule(int Id, const std::vector<const ir::Expr *> &Ops,
                     const ir::Type *Ty, const ir::Expr *DE,
                     ir::BlockStmt *Rev, const ir::Expr *Result);
  /// The adjoints of `LHS Op= RHS` (a compound assignment with a rule),
  /// whose target's adjoint \p AL held \p DE.
  void adjointCompound(const ir::Expr *LHS, ir::AssignOp Op,
                       const ir::Expr *RHS, const ir::Expr *AL,
                       const ir::Expr *DE, ir::BlockStmt *Rev);
  /// {value, pushforward}: the pair of adjoints flows into the members.
  void adjointPair(const ir::InitListExpr *E, const ir::Expr *DE,
                   ir::BlockStmt *Rev);
  /// The pullback call of a user call with return seed \p Seed.
  void pullbackCall(const ir::CallExpr *C, const ir::Expr *Seed,
                    ir::BlockStmt *Rev);
  /// Which arguments of the user call \p C get adjoints (\p Active), and
  /// which of those are private to the thread (local arrays). False after
  /// an error (an active struct passed to an opaque parameter).
  bool activeCallArgs(const ir::CallExpr *C, std::vector<bool> &Active,
                      std::vector<bool> &Private);
  /// The arguments of the pullback call of \p C: the primal's, the return
  /// seed, then per active argument its adjoint array (\p Forced: a local
  /// array's zeroed adjoint) or the address of a zeroed local declared in
  /// \p Rev, recorded in \p Results, whose value flows into the argument.
  std::vector<const ir::Expr *>
  pullbackArgs(const ir::CallExpr *C, const std::vector<bool> &Active,
               const std::vector<bool> &Forced, const ir::Expr *SeedValue,
               std::vector<std::pair<unsigned, ir::Var *>> &Results,
               ir::BlockStmt *Rev);
  /// The adjoint of an lvalue (_d_x, _d_a[i], *_d_x, _d_v.x) or null.
  const ir::Expr *adjointLValue(const ir::Expr *LValue);
  /// The adjoint memory of a pointer or array expression, or null.
  const ir::Expr *adjointPointer(const ir::Expr *P);
  void accumulate(const ir::Expr *LValue, const ir::Expr *Value,
                  ir::BlockStmt *Rev);
  /// \p E if cheap to repeat, else a fresh local initialized in \p Out.
  const ir::Expr *cheap(const ir::Expr *E, ir::BlockStmt *Out);
  bool isActive(const ir::Expr *E) const { return Activity->isActive(E); }

  ReverseModeTransformer &Owner;
  ir::Module &M;
  ir::IRBuilder B;
  DiagnosticSink &Diags;
  DerivedFunctionSet &Derived;
  ir::Function *Primal;
  ir::Function *Result;
  std::vector<bool> Selected;
  Flavor Kind;
  clang::SourceLocation RequestLoc;
  /// What the lowering of the Accumulates needs to know (the primal, the
  /// kernel adjoint arrays and scalars, the names), handed to
  /// lower-accumulations, which decides the ownership, tiles, uniform
  /// registers (GPU/KernelAdjoints) and the per-block sums of scalar
  /// parameters' adjoints (GPU/ScalarSums) itself.
  AccumulationFacts Adds;
  /// Array parameters whose adjoints are private to the calling thread.
  std::vector<bool> Private;
  /// (adjoint parameter, local adjoint) of scalar parameters that the
  /// function overwrites, added to the parameter's adjoint at the end (an
  /// Accumulate in the epilogue; in a gradient kernel, the lowering makes
  /// the local the register summed per block, GPU/ScalarSums).
  std::vector<std::pair<ir::Var *, ir::Var *>> LocalParamAdjoints;
  /// Kernels: pointer parameters whose memory the kernel only writes; the
  /// forward sweep leaves those stores out.
  llvm::SmallPtrSet<const ir::Var *, 4> WriteOnly;
  /// How many statements store to each write-only output.
  llvm::DenseMap<const ir::Var *, unsigned> OutputStores;
  /// The most statements that store to each write-only output along one
  /// path (after jump normalization; meshad::KeepSeeds needs 1).
  llvm::DenseMap<const ir::Var *, unsigned> OutputPathStores;
  bool KeepSeeds = false;
  bool Unlowered = false;
  bool WithValue = false;
  bool AfterPrimal = false;
  /// meshad::WithValue: the local that holds the primal's return value.
  ir::Var *ReturnValue = nullptr;
  // meshad::WithValue (ReverseValue.cpp).
  /// Checks that the request can keep the primal's results; declares the
  /// local of the return value. False after an error.
  bool prepareValue();
  /// Appends to \p Setup a meshad::requireSeparateSeed per write-only
  /// output that the gradient keeps and whose seed it reads.
  void checkSeparateSeeds(ir::BlockStmt *Setup);
  /// Whether a store to write-only memory is left out of the forward sweep
  /// (not under WithValue).
  bool dropsStoreTo(const ir::Var *Root) const;
  /// An error when the reverse sweep restores \p LValue, memory the caller
  /// sees, which would not hold the primal's result afterwards.
  void checkValueKept(const ir::Expr *LValue, clang::SourceLocation Loc);
  /// The same for the memory that call \p C writes through argument \p I,
  /// which the caller restores after the callee's pullback.
  void checkCalleeWritesKept(const ir::CallExpr *C, unsigned I);
  /// The forward sweep's copy of a returned value \p V into ReturnValue.
  void recordReturnValue(const ir::Expr *V, clang::SourceLocation Loc,
                         ir::BlockStmt *Fwd);
  /// Ends \p Out with `return <value>;` and remarks on the outputs kept.
  void finishValue(ir::BlockStmt *Out);
  /// meshad::KeepSeeds: runs keep-seeds (GPU/SeedResets.h) on the assembled
  /// function, which drops the marked resets of the seeds it keeps; false
  /// after its error.
  bool keepOutputSeeds();
  /// Resets \p AL (an element of an output's adjoint) to zero in place,
  /// marked; a write-only output's only store outside loops (not under
  /// KeepSeeds: keep-seeds drops the reset instead) is the seed's last use,
  /// which the lowering may defer past the epilogue (its adjoint in
  /// Adds.LastSeedUses, GPU/SeedResets placeSeedResets).
  void resetSeed(const ir::Expr *AL, const ir::Var *Root,
                 ir::BlockStmt *Rev);
  /// Locals of counted loops that the reverse sweep recomputes at the start
  /// of each iteration instead of restoring them from a tape.
  std::unique_ptr<Recomputation> Recompute;
  /// Multiplicative recurrences undone by their inverse instead of taped.
  std::unique_ptr<InvertibleUpdates> Invertible;
  llvm::SmallPtrSet<const ir::Var *, 8> Recomputed;
  /// Locals that recomputed branch conditions and late recomputations read:
  /// the loop's recomputations must compute them even when no adjoint
  /// reads them.
  llvm::SmallPtrSet<const ir::Var *, 8> ReplayReads;
  void addReplayReads(const ir::Expr *E);
  /// Counters of the counted loops being swept (recomputed in reverse).
  llvm::SmallPtrSet<const ir::Var *, 4> Counters;

  ir::BlockStmt *Body = nullptr; ///< The normalized primal body.
  std::unique_ptr<ActivityAnalysis> Activity;
  std::unique_ptr<ReverseNeeds> Needs;
  ir::BlockStmt *Decls = nullptr; ///< Function-scope declarations.
  llvm::DenseMap<const ir::Var *, ir::Var *> Adjoints;
  /// Every name of the generated function: the user's and the generated.
  ir::NameScope Names;
  std::vector<ir::Var *> Hoisted;
  ir::Var *Seed = nullptr; ///< The return seed parameter of a pullback.
  unsigned LoopDepth = 0;
  /// Device buffers whose cudaFree waits until the reverse sweep is done.
  llvm::SmallPtrSet<const ir::Var *, 4> DeferredFrees;
  bool Failed = false;
};

} // namespace meshad

#endif // MESHAD_TRANSFORM_REVERSEFUNCTION_H
