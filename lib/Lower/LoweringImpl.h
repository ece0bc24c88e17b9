//===- Lower/LoweringImpl.h - Private classes of ASTLowering -----*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The pieces ASTLowering is made of, one per node family:
/// - LoweringState: the AST, the module, diagnostics and the declaration maps
///   shared by all of them (LowerTypes.cpp),
/// - TypeLowering: Clang types to IR types (LowerTypes.cpp),
/// - ExprLowering: expressions (LowerExpr.cpp; calls: LowerCalls.cpp; kernel
///   launches: LowerLaunches.cpp),
/// - StmtLowering: statements and local declarations (LowerStmt.cpp),
/// - ASTLowering::Impl: functions and the callee memo (ASTLowering.cpp).
///
/// Convention: every lowering function returns null (or false) on failure,
/// and a failure has always been reported as an error, either right there or
/// earlier for the same construct. Callers just propagate.
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_LOWER_LOWERINGIMPL_H
#define MESHAD_LOWER_LOWERINGIMPL_H

#include "IR/IR.h"
#include "IR/NameScope.h"
#include "Lower/ASTLowering.h"
#include "Rules/ThrustRecipes.h"
#include "Support/Diagnostics.h"

#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/PrettyPrinter.h"
#include "clang/AST/Stmt.h"
#include "clang/AST/StmtCXX.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/Twine.h"

#include <functional>
#include <optional>
#include <utility>

namespace meshad {

/// What all lowering classes share.
class LoweringState {
public:
  LoweringState(clang::ASTContext &Ctx, ir::Module &M, DiagnosticSink &Diags);

  clang::ASTContext &Ctx;
  ir::Module &M;
  DiagnosticSink &Diags;
  /// Prints types and names as they must be written in emitted code.
  clang::PrintingPolicy Policy;
  /// Parameters, locals and globals lowered so far.
  llvm::DenseMap<const clang::VarDecl *, ir::Var *> Vars;
  /// References that name an object of the function (LowerReferences.cpp):
  /// every use of the reference is a copy of the lvalue it is bound to
  /// (`double &r = a[i]`: r is a[i]; `for (double &v : a)`: v is a[_i0]).
  llvm::DenseMap<const clang::VarDecl *, const ir::Expr *> Aliases;
  /// Pointers to buffers of `new T[N]` lowered as local arrays
  /// (LowerHeap.cpp): their `delete[]` is left out.
  llvm::DenseSet<const clang::VarDecl *> NewArrays;
  /// Calls lowered by inlining (LowerInline.cpp): the functions whose
  /// bodies are being lowered into their caller, innermost last, and the
  /// object `this` names in the innermost member function (an lvalue).
  std::vector<const clang::FunctionDecl *> Inlining;
  const ir::Expr *ThisObject = nullptr;
  /// The class of ThisObject when meshad knows it exactly (a local object
  /// of the class...): virtual calls on `this` run its overriders.
  const clang::CXXRecordDecl *ThisClass = nullptr;
  /// Locals initialized with a lambda (LowerFunctors.cpp): no IR variable,
  /// their calls pass the captures; the local's name for the lambda's.
  llvm::DenseMap<const clang::VarDecl *, const clang::LambdaExpr *> Lambdas;
  llvm::DenseMap<const clang::CXXRecordDecl *, std::string> LambdaNames;

  /// Reports \p Msg as an error at \p Loc; returns null for `return fail()`.
  std::nullptr_t fail(clang::SourceLocation Loc, const llvm::Twine &Msg);
  /// fail() for functions returning bool: false.
  bool reject(clang::SourceLocation Loc, const llvm::Twine &Msg) {
    fail(Loc, Msg);
    return false;
  }

  /// Creates an IR node located at \p Loc.
  template <class T, class... Args>
  T *make(clang::SourceLocation Loc, Args &&...A) {
    T *Node = M.template create<T>(std::forward<Args>(A)...);
    Node->setLoc(Loc);
    return Node;
  }

  /// The source text of \p R, or "" when it comes from a macro expansion.
  std::string getSourceText(clang::SourceRange R) const;
  /// The qualified name of \p D as emitted code must spell it ("ns::x").
  std::string getQualifiedName(const clang::NamedDecl *D) const;
};

/// Reserves in \p Names every identifier that \p FD declares (parameters,
/// locals at any depth) or refers to (globals, functions, enumerators).
void reserveUserNames(const clang::FunctionDecl *FD, ir::NameScope &Names);

/// A trivial default constructor, or the implicit one of a class without
/// bases whose only work is to set the virtual table pointer (a class with
/// virtual functions, no member initializers): `Shape s;` declares it.
bool isPlainDefaultConstructor(const clang::CXXConstructorDecl *Ctor);
/// True when every base of \p RD is public, not virtual, and has no
/// user-declared constructor, recursively: an interface (virtual functions
/// only) or a plain struct whose data members \p RD's objects hold beside
/// their own (allFields), none of them hidden by one of the same name
/// (LowerStructs.cpp).
bool hasPlainBases(const clang::CXXRecordDecl *RD);
/// The data members of \p RD's objects: its bases' (in declaration order,
/// recursively), then its own.
std::vector<const clang::FieldDecl *>
allFields(const clang::CXXRecordDecl *RD);
/// A plain struct of the user's that holds values (a record the IR keeps
/// opaque, neither a CUDA vector type nor a library type): copies of it are
/// lowered member by member (LowerStructs.cpp). Null for other types.
const clang::CXXRecordDecl *getUserStruct(const LoweringState &S,
                                          clang::QualType T);
/// The definition of \p RD when it is such a struct, else null.
const clang::CXXRecordDecl *getUserStruct(const LoweringState &S,
                                          const clang::CXXRecordDecl *RD);
/// Strips what does not change a struct value: trivial copies, no-op
/// casts, `Vec3{...}` around a brace list (LowerStructs.cpp).
const clang::Expr *stripCopies(const clang::Expr *E);
/// True when \p RD (a user struct) has a member that carries derivatives.
bool holdsDerivatives(const LoweringState &S, const clang::CXXRecordDecl *RD);
/// True for calls that are lowered by inlining the callee's body
/// (LowerInline.cpp): member functions and operators written as members of
/// user structs, and user functions taking or returning such a struct that
/// holds derivative-carrying values.
bool isInlinedCall(const LoweringState &S, const clang::CallExpr *E);
/// The lambda that initializes \p VD (`auto f = [=](double x) {...}`), or
/// null (Lower/LowerFunctors.cpp).
const clang::LambdaExpr *getLambdaInit(const clang::VarDecl *VD);

/// True for functions of namespace `thrust` (Lower/LowerThrust.cpp).
bool isThrustFunction(const clang::FunctionDecl *FD);
/// The error for a Thrust container (device_vector, host_vector) of type
/// \p T in code to differentiate, or "" for other types (LowerThrust.cpp).
std::string thrustContainerProblem(clang::QualType T);

/// A `continue` in \p Body that continues the loop \p Body belongs to (not
/// one of a nested loop); null when there is none.
const clang::Stmt *findLoopContinue(const clang::Stmt *Body);
/// The error for an expression the IR cannot represent: the construct in
/// the user's words and what to write instead (LowerMessages.cpp).
std::string describeUnsupportedExpr(const clang::Expr *E);
/// A conversion in the user's words: "from 'float3' to 'double'".
std::string describeConversion(const clang::CastExpr *E,
                               const clang::PrintingPolicy &P);

/// `T &` with a T that is not const: a reference the code may write through.
bool isMutableReference(clang::QualType T);
/// True when \p St may change \p VD: a use of it that is not a read of its
/// value (an assignment, `++`, `&v`, binding a reference). Conservative.
bool mayChange(const clang::Stmt *St, const clang::VarDecl *VD,
               const clang::Stmt *Parent);

/// assert's and printf's functions (__assert_fail, printf, fprintf...):
/// derivatives leave out statements that only call them.
bool isDiagnosticFunction(const clang::FunctionDecl *FD);
/// The operands of `a, b, c` in order; {E} for another expression, {} for
/// null.
std::vector<const clang::Expr *> splitCommas(const clang::Expr *E);

/// Maps Clang types into the IR type system.
class TypeLowering {
public:
  explicit TypeLowering(LoweringState &S) : S(S) {}

  /// Never fails: types the IR does not model become Opaque. References are
  /// lowered as their referenced type.
  const ir::Type *lowerType(clang::QualType T);
  /// The type of a parameter or local variable: `const T &` becomes T,
  /// other references are an error reported at \p D (null).
  const ir::Type *lowerDeclType(const clang::ValueDecl *D);

private:
  const ir::Type *lowerBuiltin(const clang::BuiltinType *BT,
                               clang::QualType T);
  const ir::Type *lowerRecord(const clang::RecordDecl *RD, clang::QualType T);
  const ir::Type *lowerArray(clang::QualType T);
  const ir::Type *getOpaque(clang::QualType T);

  LoweringState &S;
};

/// Lowers expressions. Calls with side effects (user functions, atomics)
/// that are not the root of an initializer, right-hand side, return value or
/// expression statement are hoisted into temporaries ("_t0"), as the IR
/// requires; the statement lowering emits them before the statement.
class ExprLowering {
public:
  /// kernel<<<grid, block, shared, stream>>>(args) at statement level.
  const ir::Stmt *lowerLaunch(const clang::CUDAKernelCallExpr *E);
  /// The IR of the kernel \p FD that a launch at \p Loc starts; null after
  /// an error when its definition is not visible.
  ir::Function *lowerLaunchedKernel(const clang::FunctionDecl *FD,
                                    clang::SourceLocation Loc);
  /// MESHAD_LAUNCH(kernel, grid, block)(args) of the CPU emulation (a call
  /// of a meshad::cpu::Launcher); null when \p E is not one.
  const ir::Stmt *lowerEmulatedLaunch(const clang::CXXOperatorCallExpr *E,
                                      bool &IsLaunch);
  /// Lowers a user callee on demand (ASTLowering::Impl::lowerFunction).
  using CalleeLowerer =
      std::function<ir::Function *(const clang::FunctionDecl *)>;
  /// Lowers an expression statement into the hoisted statements
  /// (StmtLowering::hoistStatement); false after an error.
  using StatementHoister = std::function<bool(const clang::Expr *)>;
  /// Lowers a call by inlining its callee (StmtLowering::inlineCall).
  using CallInliner = std::function<const ir::Expr *(const clang::CallExpr *)>;

  /// The per-function part of the state (saved while a callee is lowered).
  struct FunctionScope {
    const clang::Expr *Root = nullptr;
    const char *NoHoistContext = nullptr;
    /// The function's identifiers: hoisted temporaries take free names.
    ir::NameScope Names;
    std::vector<const ir::Stmt *> Hoisted;
    /// The object parameter of a functor's operator() (`this`).
    ir::Var *Self = nullptr;
  };

  ExprLowering(LoweringState &S, TypeLowering &Types,
               CalleeLowerer LowerCallee)
      : S(S), Types(Types), LowerCallee(std::move(LowerCallee)) {}

  /// Lowers any expression; assignments and increments are errors here
  /// (they are statements, see StmtLowering).
  const ir::Expr *lower(const clang::Expr *E);
  /// Lowers an initializer, right-hand side, return value or expression
  /// statement: a call at its root stays in place.
  const ir::Expr *lowerRoot(const clang::Expr *E);
  /// Lowers \p E where a hoisted call would change the semantics (loop
  /// conditions, short-circuit operands); \p Context completes "a call with
  /// side effects ... is not supported".
  const ir::Expr *lowerNoHoist(const clang::Expr *E, const char *Context);
  /// Lowers \p E, returning the statements that its nested calls were
  /// hoisted into apart (to run only where \p E is evaluated).
  const ir::Expr *lowerCaptured(const clang::Expr *E,
                                std::vector<const ir::Stmt *> &Hoisted);
  /// `Cond ? T : F` where a branch hoisted calls: a temporary set by an
  /// if-statement that runs each branch's calls only when it is taken.
  const ir::Expr *selectHoisted(clang::SourceLocation Loc, const ir::Type *Ty,
                                const ir::Expr *Cond, const ir::Expr *T,
                                std::vector<const ir::Stmt *> HT,
                                const ir::Expr *F,
                                std::vector<const ir::Stmt *> HF,
                                const char *Context);
  const ir::Expr *lowerShortCircuit(const clang::BinaryOperator *E,
                                    ir::BinaryOp Op);
  /// Lowers \p E and converts it to \p To when the IR types differ.
  const ir::Expr *lowerAs(const clang::Expr *E, const ir::Type *To);
  /// Wraps \p E in a CastExpr to \p To unless it has that type already
  /// (const ignored).
  const ir::Expr *convert(const ir::Expr *E, const ir::Type *To,
                          clang::SourceLocation Loc);
  /// The zero value of \p Ty (value-initialisation).
  const ir::Expr *makeZero(const ir::Type *Ty, clang::SourceLocation Loc);

  void setStatementHoister(StatementHoister H) {
    HoistStatement = std::move(H);
  }
  void setCallInliner(CallInliner I) { InlineCall = std::move(I); }
  /// Appends \p St to the statements run before the current one.
  void hoist(const ir::Stmt *St) { Scope.Hoisted.push_back(St); }
  /// True when \p E is the root of the statement being lowered.
  bool isRoot(const clang::Expr *E) const { return Scope.Root == E; }
  /// Why statements cannot be hoisted here (a loop condition...), or null.
  const char *getNoHoistContext() const { return Scope.NoHoistContext; }
  /// Runs \p Lower as if at the root of a statement of its own (no
  /// enclosing root or no-hoist context): an inlined callee's body.
  template <class Fn> auto asNewStatement(Fn &&Lower) {
    const clang::Expr *Root = std::exchange(Scope.Root, nullptr);
    const char *Context = std::exchange(Scope.NoHoistContext, nullptr);
    auto Result = Lower();
    Scope.Root = Root;
    Scope.NoHoistContext = Context;
    return Result;
  }
  /// The name of a local the user declared: its own, or a free variant
  /// inside an inlined callee.
  std::string localName(const clang::VarDecl *VD) {
    std::string Name = VD->getNameAsString();
    return S.Inlining.empty() ? Name : uniqueName(Name);
  }
  /// A fresh name for a variable the lowering introduces ("_t0", "_i0").
  std::string freshName(const std::string &Prefix) {
    return Scope.Names.numbered(Prefix);
  }
  /// \p Name, or a variant of it when the function uses it.
  std::string uniqueName(const std::string &Name) {
    return Scope.Names.unique(Name);
  }

  /// Temporaries hoisted since the last call, in evaluation order.
  std::vector<const ir::Stmt *> takeHoisted() {
    return std::exchange(Scope.Hoisted, {});
  }
  void restoreHoisted(std::vector<const ir::Stmt *> H) {
    Scope.Hoisted = std::move(H);
  }
  /// Starts lowering the body of \p FD; returns the caller's state.
  FunctionScope enterFunction(const clang::FunctionDecl *FD);
  void leaveFunction(FunctionScope Saved);
  /// Members of `this` in the function being lowered are members of \p V.
  void setSelf(ir::Var *V) { Scope.Self = V; }

  /// Strips parentheses and wrappers that carry no meaning for the IR.
  static const clang::Expr *skipWrappers(const clang::Expr *E);
  /// The IR operator of a non-assignment binary operator.
  static std::optional<ir::BinaryOp> getBinaryOp(clang::BinaryOperatorKind K);

private:
  const ir::Expr *lowerImplicitCast(const clang::ImplicitCastExpr *E);
  const ir::Expr *lowerExplicitCast(const clang::ExplicitCastExpr *E);
  /// Literals, value initializations and type traits (expressions without
  /// operands to lower); an error for any other expression.
  const ir::Expr *lowerLeaf(const clang::Expr *E);
  const ir::Expr *lowerFloatLit(const clang::FloatingLiteral *E);
  const ir::Expr *lowerIntLit(const clang::Expr *E, long long Value);
  const ir::Expr *lowerDeclRef(const clang::DeclRefExpr *E);
  const ir::Expr *lowerVarRef(const clang::VarDecl *VD,
                              clang::SourceLocation Loc);
  ir::Var *getGlobal(const clang::VarDecl *VD);
  const ir::Expr *lowerUnary(const clang::UnaryOperator *E);
  const ir::Expr *lowerBinary(const clang::BinaryOperator *E);
  const ir::Expr *lowerConditional(const clang::ConditionalOperator *E);
  const ir::Expr *lowerSubscript(const clang::ArraySubscriptExpr *E);
  const ir::Expr *lowerMember(const clang::MemberExpr *E);
  const ir::Expr *lowerPseudoObject(const clang::PseudoObjectExpr *E);
  const ir::Expr *lowerCall(const clang::CallExpr *E);
  /// A call of an overloaded operator: the user's free function, an
  /// assignment, a functor's operator(); an error for the others.
  const ir::Expr *lowerOperatorCall(const clang::CXXOperatorCallExpr *OC);
  /// A launch configuration argument: null when defaulted; dim3(n) is n.
  const ir::Expr *lowerLaunchConfig(const clang::Expr *E);
  const ir::Expr *lowerDirectCall(const clang::CallExpr *E,
                                  const clang::FunctionDecl *FD,
                                  const clang::DeclRefExpr *Ref);
  /// A Thrust primitive of Rules/ThrustRecipes.def (Lower/LowerThrust.cpp).
  const ir::Expr *lowerThrustCall(const clang::CallExpr *E,
                                  const clang::FunctionDecl *FD);
  /// thrust::make_counting_iterator(a) for a counting iterator argument of
  /// thrust::\p Name (Lower/LowerThrust.cpp).
  const ir::Expr *lowerCountingIterator(const clang::Expr *Arg,
                                        llvm::StringRef Name);
  const ir::Expr *lowerThrustArg(const clang::Expr *Arg, ThrustArg Role,
                                 llvm::StringRef Name);
  // Calls of operator() on functors and lambdas (LowerFunctors.cpp).
  const ir::Expr *lowerCallOperator(const clang::CXXOperatorCallExpr *E,
                                    const clang::CXXMethodDecl *MD);
  /// Why a call of the lambda \p LE is not supported, or "".
  std::string lambdaProblem(const clang::LambdaExpr *LE);
  /// The lambda a call's object is (written there or named by a local).
  const clang::LambdaExpr *findCalledLambda(const clang::Expr *Obj);
  bool lowerCaptureArgs(const clang::LambdaExpr *LE, clang::SourceLocation Loc,
                        std::vector<const ir::Expr *> &Args);
  /// The functor object of a call; a temporary is copied into a local.
  const ir::Expr *lowerFunctorObject(const clang::Expr *Obj);
  /// A user functor or lambda passed to thrust::\p Primitive: a call of
  /// its lowered operator() that binds the object or the captures
  /// (Rules/ThrustRecipes.h, ThrustUserFunctorType).
  const ir::Expr *lowerThrustFunctor(const clang::Expr *Arg,
                                     llvm::StringRef Primitive);
  /// `s` or `this->s` in a functor's operator(): `self.s`.
  const ir::Expr *lowerThisMember(const clang::MemberExpr *E,
                                  const clang::FieldDecl *Field);
  const ir::Expr *lowerConstruct(const clang::CXXConstructExpr *E);
  const ir::Expr *lowerInitList(const clang::InitListExpr *E);
  const ir::Expr *lowerTypeTrait(const clang::UnaryExprOrTypeTraitExpr *E);
  bool lowerArgs(const clang::CallExpr *E, std::vector<const ir::Expr *> &Out);
  bool isUserFunction(const clang::FunctionDecl *FD) const;
  std::string getSpelledCallee(const clang::DeclRefExpr *Ref) const;
  /// Hoists a call with side effects into a temporary unless it is the root.
  const ir::Expr *hoistIfNested(const clang::Expr *E, const ir::Expr *Call);
  /// threadIdx.x and friends (CUDA's or the CPU emulation's variables).
  const ir::Expr *lowerBuiltinIndex(ir::BuiltinExpr::Builtin B,
                                    llvm::StringRef Field,
                                    clang::SourceLocation Loc);
  const ir::Expr *unsupported(const clang::Expr *E);
  /// An assignment, `++` or `--` nested in an expression (LowerSideEffects):
  /// the update becomes a statement before the enclosing one and the
  /// expression reads \p Target afterwards (or, for `i++`, a copy taken
  /// before).
  const ir::Expr *lowerNestedUpdate(const clang::Expr *E,
                                    const clang::Expr *Target, bool Post);
  /// `a, b`: a becomes a statement, the value is b.
  const ir::Expr *lowerComma(const clang::BinaryOperator *E);
  /// A use of a reference local (a copy of S.Aliases[VD]) or of a reference
  /// parameter (`acc[0]`): LowerReferences.cpp.
  const ir::Expr *lowerAliasUse(const clang::VarDecl *VD,
                                clang::SourceLocation Loc);
  /// The argument of a callee's non-const reference parameter: the address
  /// of the lvalue \p Arg (`update(acc, x)` passes `&acc`).
  const ir::Expr *lowerReferenceArg(const clang::Expr *Arg,
                                    const clang::FunctionDecl *FD);

  /// `this->m` and `*this` inside an inlined member function.
  const ir::Expr *lowerThis(const clang::Expr *E);

  LoweringState &S;
  TypeLowering &Types;
  CalleeLowerer LowerCallee;
  StatementHoister HoistStatement;
  CallInliner InlineCall;
  FunctionScope Scope;
};

struct SwitchArm;
class InlineBindings;

/// Lowers statements and local declarations into blocks.
class StmtLowering {
public:
  StmtLowering(LoweringState &S, TypeLowering &Types, ExprLowering &Exprs)
      : S(S), Types(Types), Exprs(Exprs) {
    Exprs.setStatementHoister(
        [this](const clang::Expr *E) { return hoistStatement(E); });
    Exprs.setCallInliner(
        [this](const clang::CallExpr *E) { return inlineCall(E, nullptr); });
  }

  /// Lowers a function body or any compound statement.
  ir::BlockStmt *lowerBlock(const clang::CompoundStmt *CS);
  /// Lowers the body of \p FD (LowerLoopReturns.cpp: a `return` inside a
  /// loop sets `result` and `returned` and breaks out).
  ir::BlockStmt *lowerBody(const clang::CompoundStmt *CS,
                           const clang::FunctionDecl *FD);

private:
  /// Lowers \p St into statements appended to \p B. A failing statement is
  /// skipped (so that later errors are reported too) and false returned.
  bool lowerInto(const clang::Stmt *St, ir::BlockStmt *B);
  bool lowerIntoImpl(const clang::Stmt *St, ir::BlockStmt *B);
  /// Appends the hoisted temporaries, then \p St.
  void emit(ir::BlockStmt *B, const ir::Stmt *St);
  /// Control flow statements (one IR statement each).
  const ir::Stmt *lowerControl(const clang::Stmt *St);
  /// A statement used as a branch or loop body, as a block.
  const ir::BlockStmt *lowerAsBlock(const clang::Stmt *St);
  bool lowerDeclStmt(const clang::DeclStmt *DS, ir::BlockStmt *B);

  // Reference locals (LowerReferences.cpp).
  /// `T &r = lvalue;` in \p DS: r becomes an alias of the lvalue; an index
  /// that the statements after \p DS may change is copied first
  /// (`const int _i0 = i;`, appended to \p B).
  bool lowerReferenceLocal(const clang::VarDecl *VD,
                           const clang::DeclStmt *DS, ir::BlockStmt *B);
  const ir::Expr *lowerAliasTarget(const clang::Expr *E,
                                   const clang::VarDecl *Ref,
                                   llvm::ArrayRef<const clang::Stmt *> Scope,
                                   ir::BlockStmt *B);
  const ir::Expr *lowerAliasIndex(const clang::Expr *Idx,
                                  llvm::ArrayRef<const clang::Stmt *> Scope,
                                  ir::BlockStmt *B);
  // Inlined calls (LowerInline.cpp).
  /// Lowers the call \p E by lowering its callee's body into the hoisted
  /// statements, its parameters and `this` bound to the arguments; returns
  /// the result (\p Dest, a fresh struct variable to write a struct result
  /// into, or null).
  const ir::Expr *inlineCall(const clang::CallExpr *E, const ir::Expr *Dest);
  bool checkInlinable(const clang::CallExpr *E, const clang::FunctionDecl *FD);
  /// The lvalue `this` names for the call \p E (null for free functions).
  bool bindThis(const clang::CallExpr *E, const clang::CXXMethodDecl *MD,
                const ir::Expr *&Object);
  bool bindParams(const clang::CallExpr *E, const clang::FunctionDecl *FD,
                  InlineBindings &Bindings);
  /// \p P as a copy of \p Arg (a hoisted local) or as a name of it.
  bool bindParam(const clang::ParmVarDecl *P, const clang::Expr *Arg,
                 bool MayAlias, ir::Var *&Copy, const ir::Expr *&Alias);
  /// \p E with its non-constant indices copied into `const int` locals
  /// (hoisted): the element an lvalue argument names at the call.
  const ir::Expr *pinIndices(const ir::Expr *E);
  /// Hoists the inlined statements \p Out; the call's value.
  const ir::Expr *finishInlinedCall(const clang::CallExpr *E,
                                    const ir::Expr *Result,
                                    const std::vector<const ir::Stmt *> &Out);
  /// The statements of the body of \p FD but its last `return`, then the
  /// result: its value, or the struct it was written into.
  const ir::Expr *lowerInlinedBody(const clang::FunctionDecl *FD,
                                   const ir::Expr *Dest,
                                   std::vector<const ir::Stmt *> &Out);

  // Struct values (LowerStructs.cpp).
  /// `Dest = Src` for a user struct: one assignment per member (a brace
  /// list member by member, an inlined call writing into \p Dest when
  /// \p DestIsFresh), appended to \p Out with what they hoist.
  bool assignStruct(const ir::Expr *Dest, const clang::Expr *Src,
                    bool DestIsFresh, std::vector<const ir::Stmt *> &Out);
  /// One assignment per member of \p RD from the lvalue \p Src.
  bool copyMembers(const ir::Expr *Dest, const ir::Expr *Src,
                   const clang::CXXRecordDecl *RD, clang::SourceLocation Loc,
                   std::vector<const ir::Stmt *> &Out);
  bool assignInitList(const ir::Expr *Dest, const clang::InitListExpr *IL,
                      std::vector<const ir::Stmt *> &Out);
  /// Every member of \p Dest set to zero (`Vec3 v{};`).
  bool copyZero(const ir::Expr *Dest, const clang::CXXRecordDecl *RD,
                clang::SourceLocation Loc, std::vector<const ir::Stmt *> &Out);
  /// True for a local user struct holding derivative-carrying values that
  /// is initialized from a value (not `Vec3 v;`).
  bool isStructCopy(const clang::VarDecl *VD) const;
  /// Such a local: declared, then assigned member by member.
  bool lowerStructDecl(const clang::VarDecl *VD, ir::BlockStmt *B);
  /// `a = b` of user structs: the members' assignments; the last returned,
  /// the others hoisted.
  const ir::Stmt *lowerStructAssign(const clang::Expr *LHS,
                                    const clang::Expr *RHS,
                                    clang::SourceLocation Loc);
  /// A fresh local of a struct type, declared without initializer.
  ir::Var *declareStructTemp(clang::QualType T, const std::string &Name,
                             clang::SourceLocation Loc,
                             std::vector<const ir::Stmt *> &Out);

  /// `auto f = [..](..) {..};`: recorded for its calls, no IR (checks that
  /// what it captures by copy does not change after it; LowerFunctors.cpp).
  bool lowerLambdaLocal(const clang::VarDecl *VD, const clang::LambdaExpr *LE,
                        const clang::DeclStmt *DS);
  // new T[N] and delete[] (LowerHeap.cpp).
  bool isNewArray(const clang::VarDecl *VD) const;
  /// `T *t = new T[N];` as the local array `T t[N]`.
  bool lowerNewArray(const clang::VarDecl *VD, const clang::DeclStmt *DS,
                     ir::BlockStmt *B);
  /// `delete[] t;` of such a buffer is left out (meshad::deleteArray(t)
  /// for one of run-time size); others are errors.
  bool lowerDelete(const clang::CXXDeleteExpr *E, ir::BlockStmt *B);
  bool lowerMallocArray(const clang::VarDecl *VD, const clang::DeclStmt *DS,
                        ir::BlockStmt *B);
  bool lowerNewScalar(const clang::VarDecl *VD, const clang::DeclStmt *DS,
                      ir::BlockStmt *B, const clang::CXXNewExpr *NE);
  /// `T *t = new T[n];` of a run-time size n: `T *t;
  /// meshad::newArray(&t, n);`, its `delete[] t;` `meshad::deleteArray(t);`.
  bool lowerRuntimeArray(const clang::VarDecl *VD, const clang::DeclStmt *DS,
                         ir::BlockStmt *B, const clang::Expr *Size,
                         clang::QualType ElemTy, clang::SourceLocation Loc);
  bool isInsideLoop(const clang::Stmt *St);
  /// `delete[] t;` (`free(t)`) of \p VD later in the block of \p DS, with
  /// no jump out of the block before it.
  bool isReleasedInBlock(const clang::VarDecl *VD, const clang::DeclStmt *DS);
  bool declareBuffer(const clang::VarDecl *VD, const clang::DeclStmt *DS,
                     ir::BlockStmt *B, clang::QualType ElemTy, uint64_t N,
                     bool Zeroed, clang::SourceLocation Loc);
  /// The buffer of `free(t)` of a buffer that lowerNewArray lowered.
  const clang::VarDecl *getFreedBuffer(const clang::Expr *E) const;
  /// `free(t)`: left out for a local array, meshad::deleteArray(t) for a
  /// buffer of run-time size.
  bool lowerFree(const clang::Expr *E, ir::BlockStmt *B);
  void emitDeleteArray(const clang::VarDecl *VD, clang::SourceLocation Loc,
                       ir::BlockStmt *B);
  /// The statements a local declared by \p DS lives in after it.
  std::vector<const clang::Stmt *> getScopeAfter(const clang::DeclStmt *DS);
  ir::DeclStmt *lowerVarDecl(const clang::VarDecl *VD);
  ir::DeclStmt *lowerDynamicShared(const clang::VarDecl *VD);
  std::optional<ir::Var::Storage> getLocalStorage(const clang::VarDecl *VD);
  /// Null when there is no initializer; std::nullopt on error.
  std::optional<const ir::Expr *> lowerVarInit(const clang::VarDecl *VD);
  bool lowerExprStmt(const clang::Expr *E, ir::BlockStmt *B);
  /// An assignment, compound assignment, ++ or --: sets \p IsUpdate and
  /// returns the statement (null on error); \p IsUpdate false for others.
  const ir::Stmt *lowerUpdate(const clang::Expr *E, bool &IsUpdate);
  const ir::Stmt *makeAssign(const clang::Expr *LHS, ir::AssignOp Op,
                             const clang::Expr *RHS, clang::SourceLocation Loc);
  const ir::Stmt *lowerCompoundAssign(const clang::CompoundAssignOperator *E);
  const ir::Stmt *lowerIf(const clang::IfStmt *IS);
  const ir::Stmt *lowerFor(const clang::ForStmt *FS);
  const ir::Stmt *lowerForRest(const clang::ForStmt *FS,
                               const ir::Stmt *Init);
  const ir::Stmt *lowerForInit(const clang::Stmt *Init);
  /// The statements of a for-loop increment, in order.
  bool lowerForInc(const clang::Expr *Inc, std::vector<const ir::Stmt *> &Out);
  const ir::Stmt *lowerWhile(const clang::WhileStmt *WS);
  const ir::Stmt *lowerDo(const clang::DoStmt *DS);
  const ir::Stmt *lowerReturn(const clang::ReturnStmt *RS);
  const ir::Expr *lowerCondition(const clang::Expr *Cond,
                                 const clang::VarDecl *CondVar);
  const ir::Stmt *unsupported(const clang::Stmt *St);

  // Side effects in expressions and conditions (LowerSideEffects.cpp).
  /// Lowers the expression statement \p E into the hoisted statements.
  bool hoistStatement(const clang::Expr *E);
  /// Rejects a full expression that modifies a variable in a nested
  /// assignment, `++` or `--` and also names it elsewhere: those side
  /// effects run as statements before the rest, which would then read the
  /// new value where C++ may read the old one.
  bool checkSequencing(const clang::Expr *Full);
  /// A loop condition (with its condition variable): its value, and in
  /// \p Pre what must run before each test (hoisted calls, side effects,
  /// the variable's declaration).
  const ir::Expr *lowerLoopCondition(const clang::Expr *Cond,
                                     const clang::VarDecl *CondVar,
                                     std::vector<const ir::Stmt *> &Pre);
  /// `{ Pre; if (!Cond) break; Body }`: a loop body that tests a condition
  /// with side effects itself; \p AtEnd puts the test after \p Body.
  const ir::BlockStmt *testInBody(const ir::Expr *Cond,
                                  std::vector<const ir::Stmt *> Pre,
                                  const ir::BlockStmt *Body, bool AtEnd);
  /// Runs \p Lower with a block that \p Init (an if/switch initializer or
  /// a condition variable) is lowered into first; returns that block.
  const ir::Stmt *
  withInitializer(const clang::Stmt *Init, const clang::VarDecl *CondVar,
                  clang::SourceLocation Loc,
                  const std::function<const ir::Stmt *()> &Lower);

  // switch and range-based for (LowerSwitch.cpp).
  const ir::Stmt *lowerSwitch(const clang::SwitchStmt *SS);
  const ir::Stmt *lowerSwitchBody(const clang::SwitchStmt *SS);
  /// The statements arm \p I runs (its own, then the next arms' while it
  /// falls through), without the `break` that ends them.
  const ir::BlockStmt *lowerSwitchArm(const std::vector<SwitchArm> &Arms,
                                      size_t I, clang::SourceLocation Loc);
  /// `v == 1 || v == 2` for the labels of \p Arm.
  const ir::Expr *switchTest(const SwitchArm &Arm, const ir::Expr *Value);
  const ir::Stmt *lowerRangeFor(const clang::CXXForRangeStmt *FS);
  /// The range-based for's variable as the element \p Counter of the array
  /// \p ArrayRef names: a reference is an alias, a copy a local declared
  /// first in \p Body; false after an error.
  bool bindRangeVariable(const clang::CXXForRangeStmt *FS,
                         const ir::VarRefExpr *ArrayRef, ir::Var *Counter,
                         ir::BlockStmt *Body);
  /// lowerInto, leaving out the `break` \p Skipped (one that ends a case).
  bool lowerIntoSkipping(const clang::Stmt *St, ir::BlockStmt *B,
                         const clang::Stmt *Skipped);
  // assert and printf (LowerSideEffects.cpp).
  /// True for an expression statement whose only effects are diagnostics
  /// (assert, printf): the derivative does not depend on it.
  bool isDiagnosticOnly(const clang::Expr *E) const;

  LoweringState &S;
  TypeLowering &Types;
  ExprLowering &Exprs;
  /// The `break` that ends the switch case being lowered: left out.
  const clang::Stmt *SkippedBreak = nullptr;

  /// The function being lowered's returns inside loops.
  struct LoopReturns {
    unsigned Depth = 0;         ///< loops around the statement lowered
    ir::Var *Returned = nullptr; ///< set when a return inside a loop ran
    ir::Var *Result = nullptr;   ///< its value (non-void functions)
  };
  LoopReturns Returns;
  /// A loop statement, then the test that leaves the loop around it (or the
  /// function) after a return inside it.
  bool lowerLoop(const clang::Stmt *St, ir::BlockStmt *B);
  /// `return v;` inside a loop: result = v; returned = true; break;
  bool lowerLoopReturn(const clang::ReturnStmt *RS, ir::BlockStmt *B);
};

/// Functions: definitions, signatures and the memo of lowered callees.
class ASTLowering::Impl {
public:
  Impl(clang::ASTContext &Ctx, ir::Module &M, DiagnosticSink &Diags);

  ir::Function *lowerFunction(const clang::FunctionDecl *FD);
  const clang::FunctionDecl *getDecl(const ir::Function *F) const;
  /// The lowered lambdas, whose primals are emitted (LowerFunctors.cpp).
  std::vector<ir::Function *> Lambdas;

  LoweringState S;
  TypeLowering Types;
  ExprLowering Exprs;
  StmtLowering Stmts;

private:
  const clang::FunctionDecl *findDefinition(const clang::FunctionDecl *FD);
  ir::Function *createSignature(const clang::FunctionDecl *FD);
  bool lowerParams(const clang::FunctionDecl *FD, ir::Function *F);
  /// `T &p` is passed as a pointer to T (scalars and vectors).
  const ir::Type *lowerReferenceParamType(const clang::ParmVarDecl *P);
  /// Applies the meshad annotations of \p P (MESHAD_THREAD_EXCLUSIVE) to
  /// \p V; false after reporting a misplaced or unknown one.
  bool lowerParamAnnotations(const clang::ParmVarDecl *P, ir::Var *V);
  static ir::CudaTarget getCudaTarget(const clang::FunctionDecl *FD);
  static std::string getQualifiers(const clang::FunctionDecl *FD);
  std::string getTemplateArgs(const clang::FunctionDecl *FD);
  /// "ns::inner" for a function of namespace ns::inner, "" for a global one.
  static std::string getNamespace(const clang::FunctionDecl *FD);
  bool checkSupported(const clang::FunctionDecl *FD);
  // operator() of functors and lambdas (LowerFunctors.cpp).
  /// The object's parameters before the operator's own: `self` for a
  /// functor, the captures of a lambda; names \p F.
  bool lowerObjectParams(const clang::FunctionDecl *FD, ir::Function *F);
  /// Binds `this` or the captured variables to \p F's parameters while its
  /// body is lowered; returns what unbindObject restores.
  std::vector<std::pair<const clang::VarDecl *, ir::Var *>>
  bindObject(ir::Function *F);
  void unbindObject(
      const std::vector<std::pair<const clang::VarDecl *, ir::Var *>> &Saved);
  llvm::DenseMap<const ir::Function *, std::vector<const clang::VarDecl *>>
      Captures;

  llvm::DenseMap<const clang::FunctionDecl *, ir::Function *> Functions;
  llvm::DenseMap<const ir::Function *, const clang::FunctionDecl *> Decls;
  llvm::DenseSet<const clang::FunctionDecl *> Failed;
};

} // namespace meshad

#endif // MESHAD_LOWER_LOWERINGIMPL_H
