//===- IR/IR.h - The meshad intermediate representation ----------*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// A small structured IR between the Clang AST and the emitted CUDA C++.
///
/// - Expressions are side-effect free trees (calls to user functions and a few
///   intrinsics such as atomicAdd are the exception and appear only as the
///   root of an ExprStmt or an initializer/right-hand side).
/// - Statements are structured: blocks, if, for, while, do, break, continue,
///   return, declarations and assignments. There is no goto.
/// - Variables keep the user's names, so emitted code reads like the input.
/// - Memory accesses are explicit IndexExprs whose index expressions stay
///   symbolic (threadIdx.x, loop variables...), for later analyses.
///
/// Every mode (forward, reverse, Hessian) is a transformation from IR to IR,
/// so transformations compose. Nodes are owned by a Module and never freed
/// individually; transformations build new nodes and may share unchanged
/// subtrees (nodes are immutable once built).
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_IR_IR_H
#define MESHAD_IR_IR_H

#include "IR/Type.h"
#include "clang/Basic/SourceLocation.h"
#include "llvm/Support/Casting.h"

#include <memory>
#include <string>
#include <vector>

namespace meshad {
namespace ir {

class Function;

//===----------------------------------------------------------------------===//
// Variables
//===----------------------------------------------------------------------===//

/// What a variable is to derivative code, as the transform that created it
/// says: a set, because a variable of a composed derivative can play two
/// derivative roles (forward mode over a gradient makes `_d2_d_x`, the
/// tangent of the adjoint `_d_x`: {Tangent, Adjoint}; the tangent tape
/// beside a tape is {Tangent, Tape}). Lowered user variables are {Primal},
/// alone. Passes ask roles instead of guessing from names.
class VarRoles {
public:
  enum Role : unsigned {
    Primal = 1,    ///< A variable of the user's code.
    Tangent = 2,   ///< Forward mode: a tangent (_d_x).
    Adjoint = 4,   ///< Reverse mode: an adjoint (_d_x), a return seed.
    Tape = 8,      ///< A meshad::Tape of saved values.
    Temporary = 16 ///< A generated temporary (_t0, _r1, a loop count).
  };

  VarRoles(unsigned Bits = Primal) : Bits(Bits) {}
  bool has(Role R) const { return Bits & R; }
  unsigned bits() const { return Bits; }
  bool operator==(VarRoles O) const { return Bits == O.Bits; }
  /// The roles of the tangent or adjoint (\p R) of a variable with roles
  /// \p Of: R with what \p Of is beyond primal (a tangent of a temporary
  /// is a temporary's tangent).
  static VarRoles derivativeOf(VarRoles Of, Role R) {
    return VarRoles((Of.Bits & ~unsigned(Primal)) | R);
  }
  /// "primal", "tangent|adjoint"... (for messages).
  std::string str() const;

private:
  unsigned Bits;
};

/// A named variable: a parameter, a local, a __shared__ array, or a global
/// variable of the translation unit that the function reads by name (globals
/// are constants for differentiation: they carry no derivative).
class Var {
public:
  enum class Storage { Param, Local, Shared, Global };

  Var(std::string Name, const Type *Ty, Storage S,
      VarRoles Roles = VarRoles::Primal)
      : Name(std::move(Name)), Ty(Ty), S(S), Roles(Roles) {}

  const std::string &getName() const { return Name; }
  /// Renames the variable everywhere it is used (reverse mode hoists
  /// declarations to function scope and renames shadowing locals).
  void setName(std::string N) { Name = std::move(N); }
  const Type *getType() const { return Ty; }
  /// Drops const when reverse mode hoists a declaration to function scope.
  void setType(const Type *T) { Ty = T; }
  Storage getStorage() const { return S; }
  bool isParam() const { return S == Storage::Param; }
  bool isShared() const { return S == Storage::Shared; }
  bool isGlobal() const { return S == Storage::Global; }
  /// A kernel's pointer parameter that the user declared thread-exclusive
  /// (MESHAD_THREAD_EXCLUSIVE): no two threads of a launch touch the same
  /// element, a fact the ownership analysis takes without proof.
  bool isAssertedExclusive() const { return AssertedExclusive; }
  void setAssertedExclusive(bool B) { AssertedExclusive = B; }
  /// A parameter the user declared as a non-const reference (`double &acc`):
  /// the IR passes it as a pointer (`double *acc`, read and written as
  /// `acc[0]`), so that derivatives treat it as memory the callee writes;
  /// calls of the user's own function pass the referenced object (the
  /// emitter spells `update(acc, x)`, not `update(&acc, x)`).
  bool isReferenceParam() const { return ReferenceParam; }
  void setReferenceParam(bool B) { ReferenceParam = B; }
  /// What the variable is to derivative code (see VarRoles).
  VarRoles getRoles() const { return Roles; }
  void setRoles(VarRoles R) { Roles = R; }

private:
  std::string Name;
  const Type *Ty;
  Storage S;
  VarRoles Roles;
  bool AssertedExclusive = false;
  bool ReferenceParam = false;
};

//===----------------------------------------------------------------------===//
// Expressions
//===----------------------------------------------------------------------===//

/// Base of all expressions. Every expression has a type and, where it came
/// from user code, the location of the construct it was lowered from.
class Expr {
public:
  enum class Kind {
    FloatLit,
    IntLit,
    BoolLit,
    VarRef,
    Builtin,
    Unary,
    Binary,
    Conditional,
    Call,
    Index,
    Member,
    Cast,
    InitList,
  };

  Kind getKind() const { return K; }
  const Type *getType() const { return Ty; }
  clang::SourceLocation getLoc() const { return Loc; }
  void setLoc(clang::SourceLocation L) { Loc = L; }

  virtual ~Expr() = default;

protected:
  Expr(Kind K, const Type *Ty) : K(K), Ty(Ty) {}

private:
  Kind K;
  const Type *Ty;
  clang::SourceLocation Loc;
};

/// A floating literal. Spelling is kept when it came from source ("0.5f").
class FloatLitExpr : public Expr {
public:
  FloatLitExpr(const Type *Ty, double Value, std::string Spelling)
      : Expr(Kind::FloatLit, Ty), Value(Value), Spelling(std::move(Spelling)) {}
  double getValue() const { return Value; }
  const std::string &getSpelling() const { return Spelling; }
  static bool classof(const Expr *E) { return E->getKind() == Kind::FloatLit; }

private:
  double Value;
  std::string Spelling;
};

/// An integer literal.
class IntLitExpr : public Expr {
public:
  IntLitExpr(const Type *Ty, long long Value, std::string Spelling)
      : Expr(Kind::IntLit, Ty), Value(Value), Spelling(std::move(Spelling)) {}
  long long getValue() const { return Value; }
  const std::string &getSpelling() const { return Spelling; }
  static bool classof(const Expr *E) { return E->getKind() == Kind::IntLit; }

private:
  long long Value;
  std::string Spelling;
};

/// true / false.
class BoolLitExpr : public Expr {
public:
  BoolLitExpr(const Type *Ty, bool Value)
      : Expr(Kind::BoolLit, Ty), Value(Value) {}
  bool getValue() const { return Value; }
  static bool classof(const Expr *E) { return E->getKind() == Kind::BoolLit; }

private:
  bool Value;
};

/// A use of a variable.
class VarRefExpr : public Expr {
public:
  explicit VarRefExpr(Var *V) : Expr(Kind::VarRef, V->getType()), V(V) {}
  Var *getVar() const { return V; }
  static bool classof(const Expr *E) { return E->getKind() == Kind::VarRef; }

private:
  Var *V;
};

/// A CUDA built-in index: threadIdx/blockIdx/blockDim/gridDim with a
/// dimension, or warpSize.
class BuiltinExpr : public Expr {
public:
  enum class Builtin { ThreadIdx, BlockIdx, BlockDim, GridDim, WarpSize };
  BuiltinExpr(const Type *Ty, Builtin B, unsigned Dim)
      : Expr(Kind::Builtin, Ty), B(B), Dim(Dim) {}
  Builtin getBuiltin() const { return B; }
  /// 0, 1, 2 for .x, .y, .z (0 for warpSize).
  unsigned getDim() const { return Dim; }
  static bool classof(const Expr *E) { return E->getKind() == Kind::Builtin; }

private:
  Builtin B;
  unsigned Dim;
};

/// Unary operators. AddrOf/Deref appear for pointer code (&E[0], *p).
enum class UnaryOp { Neg, Plus, Not, BitNot, AddrOf, Deref };

class UnaryExpr : public Expr {
public:
  UnaryExpr(const Type *Ty, UnaryOp Op, const Expr *Sub)
      : Expr(Kind::Unary, Ty), Op(Op), Sub(Sub) {}
  UnaryOp getOp() const { return Op; }
  const Expr *getSub() const { return Sub; }
  static bool classof(const Expr *E) { return E->getKind() == Kind::Unary; }

private:
  UnaryOp Op;
  const Expr *Sub;
};

/// Binary operators (no assignment: assignments are statements).
enum class BinaryOp {
  Add, Sub, Mul, Div, Rem,
  Lt, Gt, Le, Ge, Eq, Ne,
  LAnd, LOr,
  BitAnd, BitOr, BitXor, Shl, Shr,
};

/// True for + - * / (the arithmetic that carries derivatives).
bool isArithmetic(BinaryOp Op);
/// True for comparisons and logical operators (bool-valued).
bool isComparisonOrLogical(BinaryOp Op);

class BinaryExpr : public Expr {
public:
  BinaryExpr(const Type *Ty, BinaryOp Op, const Expr *LHS, const Expr *RHS)
      : Expr(Kind::Binary, Ty), Op(Op), LHS(LHS), RHS(RHS) {}
  BinaryOp getOp() const { return Op; }
  const Expr *getLHS() const { return LHS; }
  const Expr *getRHS() const { return RHS; }
  static bool classof(const Expr *E) { return E->getKind() == Kind::Binary; }

private:
  BinaryOp Op;
  const Expr *LHS, *RHS;
};

/// Cond ? True : False.
class ConditionalExpr : public Expr {
public:
  ConditionalExpr(const Type *Ty, const Expr *Cond, const Expr *T,
                  const Expr *F)
      : Expr(Kind::Conditional, Ty), Cond(Cond), TrueE(T), FalseE(F) {}
  const Expr *getCond() const { return Cond; }
  const Expr *getTrue() const { return TrueE; }
  const Expr *getFalse() const { return FalseE; }
  static bool classof(const Expr *E) {
    return E->getKind() == Kind::Conditional;
  }

private:
  const Expr *Cond, *TrueE, *FalseE;
};

/// A call. The callee is one of
/// - a user Function of the same Module (derivatives are generated for it),
/// - a math function with a derivative rule (MathId indexes the rule table),
/// - a named intrinsic the IR knows by name (atomicAdd, __syncthreads,
///   make_float3, min, max, printf...) or a function the IR treats as opaque.
class CallExpr : public Expr {
public:
  enum class CalleeKind { User, Math, Intrinsic };

  CallExpr(const Type *Ty, Function *Callee, std::vector<const Expr *> Args)
      : Expr(Kind::Call, Ty), CK(CalleeKind::User), UserCallee(Callee),
        Args(std::move(Args)) {}
  CallExpr(const Type *Ty, CalleeKind CK, std::string Name, int MathId,
           std::vector<const Expr *> Args)
      : Expr(Kind::Call, Ty), CK(CK), Name(std::move(Name)), MathId(MathId),
        Args(std::move(Args)) {}

  CalleeKind getCalleeKind() const { return CK; }
  /// For user calls.
  Function *getUserCallee() const { return UserCallee; }
  /// Spelled callee name for math functions and intrinsics ("sinf").
  const std::string &getName() const { return Name; }
  /// Index into the derivative rule table (math calls only), else -1.
  int getMathId() const { return MathId; }
  const std::vector<const Expr *> &getArgs() const { return Args; }
  const Expr *getArg(unsigned I) const { return Args[I]; }
  unsigned getNumArgs() const { return Args.size(); }
  static bool classof(const Expr *E) { return E->getKind() == Kind::Call; }

private:
  CalleeKind CK;
  Function *UserCallee = nullptr;
  std::string Name;
  int MathId = -1;
  std::vector<const Expr *> Args;
};

/// Base[Index]: a memory access through a pointer or an array.
class IndexExpr : public Expr {
public:
  IndexExpr(const Type *Ty, const Expr *Base, const Expr *Idx)
      : Expr(Kind::Index, Ty), Base(Base), Idx(Idx) {}
  const Expr *getBase() const { return Base; }
  const Expr *getIndex() const { return Idx; }
  static bool classof(const Expr *E) { return E->getKind() == Kind::Index; }

private:
  const Expr *Base, *Idx;
};

/// Base.Field (or Base->Field when Arrow) for vector components x/y/z/w and
/// members of opaque structs.
class MemberExpr : public Expr {
public:
  MemberExpr(const Type *Ty, const Expr *Base, std::string Field, bool Arrow)
      : Expr(Kind::Member, Ty), Base(Base), Field(std::move(Field)),
        Arrow(Arrow) {}
  const Expr *getBase() const { return Base; }
  const std::string &getField() const { return Field; }
  bool isArrow() const { return Arrow; }
  static bool classof(const Expr *E) { return E->getKind() == Kind::Member; }

private:
  const Expr *Base;
  std::string Field;
  bool Arrow;
};

/// (Type) Sub: conversions between arithmetic types (float <-> double keeps
/// the derivative; to integer drops it).
class CastExpr : public Expr {
public:
  CastExpr(const Type *Ty, const Expr *Sub) : Expr(Kind::Cast, Ty), Sub(Sub) {}
  const Expr *getSub() const { return Sub; }
  static bool classof(const Expr *E) { return E->getKind() == Kind::Cast; }

private:
  const Expr *Sub;
};

/// {a, b, c} initializing a local array.
class InitListExpr : public Expr {
public:
  InitListExpr(const Type *Ty, std::vector<const Expr *> Elems)
      : Expr(Kind::InitList, Ty), Elems(std::move(Elems)) {}
  const std::vector<const Expr *> &getElements() const { return Elems; }
  static bool classof(const Expr *E) { return E->getKind() == Kind::InitList; }

private:
  std::vector<const Expr *> Elems;
};

//===----------------------------------------------------------------------===//
// Statements
//===----------------------------------------------------------------------===//

class Stmt {
public:
  enum class Kind {
    Block,
    Decl,
    Assign,
    ExprStmt,
    If,
    For,
    While,
    Do,
    Break,
    Continue,
    Return,
    Comment,
    Launch,
    Marker,
  };
  Kind getKind() const { return K; }
  clang::SourceLocation getLoc() const { return Loc; }
  void setLoc(clang::SourceLocation L) { Loc = L; }
  virtual ~Stmt() = default;

protected:
  explicit Stmt(Kind K) : K(K) {}

private:
  Kind K;
  clang::SourceLocation Loc;
};

/// { S1; S2; ... }. Blocks are the only mutable statements: transforms
/// append to the blocks they build.
class BlockStmt : public Stmt {
public:
  BlockStmt() : Stmt(Kind::Block) {}
  explicit BlockStmt(std::vector<const Stmt *> Body)
      : Stmt(Kind::Block), Body(std::move(Body)) {}
  const std::vector<const Stmt *> &getBody() const { return Body; }
  void append(const Stmt *S) { Body.push_back(S); }
  /// Replaces the statements (for passes that rewrite generated code).
  void setBody(std::vector<const Stmt *> NewBody) { Body = std::move(NewBody); }
  static bool classof(const Stmt *S) { return S->getKind() == Kind::Block; }

private:
  std::vector<const Stmt *> Body;
};

/// Declaration of a local (or __shared__) variable with optional initializer.
class DeclStmt : public Stmt {
public:
  DeclStmt(Var *V, const Expr *Init) : Stmt(Kind::Decl), V(V), Init(Init) {}
  Var *getVar() const { return V; }
  const Expr *getInit() const { return Init; }
  static bool classof(const Stmt *S) { return S->getKind() == Kind::Decl; }

private:
  Var *V;
  const Expr *Init;
};

/// Assignment operators. Inc/Dec have no right-hand side (++x / --x).
///
/// Accumulate is `LHS += RHS` where other threads may add to LHS at the same
/// time and the form of the add (plain, atomic, a warp or block reduction, a
/// shared-memory tile, a gather) is not chosen yet: reverse mode writes every
/// adjoint store as one, other modes carry them through (the tangent of an
/// Accumulate is an Accumulate), and the GPU lowering (GPU/LowerAccumulations)
/// replaces each by its form, last. None may be left when the code is emitted.
enum class AssignOp { Assign, AddAssign, SubAssign, MulAssign, DivAssign, Inc,
                      Dec, Accumulate };

/// True for `+=` and Accumulate: assignments that add their right-hand side.
inline bool isAdditive(AssignOp Op) {
  return Op == AssignOp::AddAssign || Op == AssignOp::Accumulate;
}

/// LHS op= RHS, where LHS is a VarRef, Index, Member or Deref expression.
class AssignStmt : public Stmt {
public:
  AssignStmt(const Expr *LHS, AssignOp Op, const Expr *RHS)
      : Stmt(Kind::Assign), LHS(LHS), Op(Op), RHS(RHS) {}
  const Expr *getLHS() const { return LHS; }
  AssignOp getOp() const { return Op; }
  const Expr *getRHS() const { return RHS; }
  /// A marker for the passes after reverse mode: this store resets the
  /// adjoint (the seed) of an element of a pointer parameter's memory, which
  /// the primal stored to (`_d_y[i] = 0` for `y[i] = ...`). Such a reset may
  /// be dropped (meshad::KeepSeeds, GPU/SeedResets). The emitter ignores it.
  bool isSeedReset() const { return SeedReset; }
  void setSeedReset(bool R = true) { SeedReset = R; }
  /// For an Accumulate of reverse mode: the primal access whose adjoint it
  /// adds to (the read `x[i - 1]` of the primal, an expression of the
  /// primal function), or null. The add runs where that read ran, in the
  /// same thread, at the same element (the sweep restores the values the
  /// index reads), so the ownership of a kernel adjoint array may be
  /// classified on these reads where the finished function's own indices
  /// are not understood (GPU/AdjointOwnership). Clone keeps it.
  const Expr *getPrimalAccess() const { return PrimalAccess; }
  void setPrimalAccess(const Expr *E) { PrimalAccess = E; }
  static bool classof(const Stmt *S) { return S->getKind() == Kind::Assign; }

private:
  const Expr *LHS;
  AssignOp Op;
  const Expr *RHS;
  bool SeedReset = false;
  const Expr *PrimalAccess = nullptr;
};

/// An expression evaluated for its effect (a call).
class ExprStmt : public Stmt {
public:
  explicit ExprStmt(const Expr *E) : Stmt(Kind::ExprStmt), E(E) {}
  const Expr *getExpr() const { return E; }
  static bool classof(const Stmt *S) { return S->getKind() == Kind::ExprStmt; }

private:
  const Expr *E;
};

class IfStmt : public Stmt {
public:
  IfStmt(const Expr *Cond, const BlockStmt *Then, const BlockStmt *Else)
      : Stmt(Kind::If), Cond(Cond), Then(Then), Else(Else) {}
  const Expr *getCond() const { return Cond; }
  const BlockStmt *getThen() const { return Then; }
  /// May be null.
  const BlockStmt *getElse() const { return Else; }
  static bool classof(const Stmt *S) { return S->getKind() == Kind::If; }

private:
  const Expr *Cond;
  const BlockStmt *Then, *Else;
};

/// for (Init; Cond; Inc) Body. Init is a Decl/Assign or null; Cond may be
/// null (infinite loop); Inc is an Assign or null.
class ForStmt : public Stmt {
public:
  ForStmt(const Stmt *Init, const Expr *Cond, const Stmt *Inc,
          const BlockStmt *Body)
      : Stmt(Kind::For), Init(Init), Cond(Cond), Inc(Inc), Body(Body) {}
  const Stmt *getInit() const { return Init; }
  const Expr *getCond() const { return Cond; }
  const Stmt *getInc() const { return Inc; }
  const BlockStmt *getBody() const { return Body; }
  static bool classof(const Stmt *S) { return S->getKind() == Kind::For; }

private:
  const Stmt *Init;
  const Expr *Cond;
  const Stmt *Inc;
  const BlockStmt *Body;
};

class WhileStmt : public Stmt {
public:
  WhileStmt(const Expr *Cond, const BlockStmt *Body)
      : Stmt(Kind::While), Cond(Cond), Body(Body) {}
  const Expr *getCond() const { return Cond; }
  const BlockStmt *getBody() const { return Body; }
  static bool classof(const Stmt *S) { return S->getKind() == Kind::While; }

private:
  const Expr *Cond;
  const BlockStmt *Body;
};

class DoStmt : public Stmt {
public:
  DoStmt(const BlockStmt *Body, const Expr *Cond)
      : Stmt(Kind::Do), Body(Body), Cond(Cond) {}
  const BlockStmt *getBody() const { return Body; }
  const Expr *getCond() const { return Cond; }
  static bool classof(const Stmt *S) { return S->getKind() == Kind::Do; }

private:
  const BlockStmt *Body;
  const Expr *Cond;
};

class BreakStmt : public Stmt {
public:
  BreakStmt() : Stmt(Kind::Break) {}
  static bool classof(const Stmt *S) { return S->getKind() == Kind::Break; }
};

class ContinueStmt : public Stmt {
public:
  ContinueStmt() : Stmt(Kind::Continue) {}
  static bool classof(const Stmt *S) { return S->getKind() == Kind::Continue; }
};

/// return; or return Value;
class ReturnStmt : public Stmt {
public:
  explicit ReturnStmt(const Expr *Value) : Stmt(Kind::Return), Value(Value) {}
  const Expr *getValue() const { return Value; }
  static bool classof(const Stmt *S) { return S->getKind() == Kind::Return; }

private:
  const Expr *Value;
};

/// A // comment line in the emitted code (for readable dumps).
class CommentStmt : public Stmt {
public:
  explicit CommentStmt(std::string Text)
      : Stmt(Kind::Comment), Text(std::move(Text)) {}
  const std::string &getText() const { return Text; }
  static bool classof(const Stmt *S) { return S->getKind() == Kind::Comment; }

private:
  std::string Text;
};

/// Where a region of a function built by reverse mode begins or ends, for
/// the passes that run after it (the GPU lowering places registers, tiles,
/// their write-backs and deferred resets by them): a top-level statement of
/// the body that emits nothing. Reverse mode puts one of each kind, in this
/// order, between its regions: the function-scope declarations that come
/// before the sweep's own temporaries (SetupEnd), the zeroing of shared
/// adjoints (ForwardBegin), the forward sweep (ReverseBegin), the reverse
/// sweep (EpilogueBegin), the epilogue (EpilogueEnd), and the return of a
/// gradient's value. Clone keeps them; the verifier checks their order and
/// place, and that none is left at emission (pass drop-markers removes them).
class MarkerStmt : public Stmt {
public:
  enum class Region { SetupEnd, ForwardBegin, ReverseBegin, EpilogueBegin,
                      EpilogueEnd };
  explicit MarkerStmt(Region R) : Stmt(Kind::Marker), R(R) {}
  Region getRegion() const { return R; }
  /// The marker's name in dumps and verifier messages ("reverse-begin").
  static const char *getRegionName(Region R);
  static bool classof(const Stmt *S) { return S->getKind() == Kind::Marker; }

private:
  Region R;
};

/// Kernel<<<Grid, Block, SharedBytes, Stream>>>(Args): a kernel launch from
/// host code. SharedBytes and Stream may be null.
class LaunchStmt : public Stmt {
public:
  LaunchStmt(Function *Kernel, const Expr *Grid, const Expr *Block,
             const Expr *SharedBytes, const Expr *Stream,
             std::vector<const Expr *> Args, bool ViaMacro = false)
      : Stmt(Kind::Launch), Kernel(Kernel), Grid(Grid), Block(Block),
        SharedBytes(SharedBytes), Stream(Stream), Args(std::move(Args)),
        ViaMacro(ViaMacro) {}
  /// Written MESHAD_LAUNCH(k, grid, block)(args) (the portable form that the
  /// CPU emulation runs) rather than k<<<grid, block>>>(args).
  bool isViaMacro() const { return ViaMacro; }
  Function *getKernel() const { return Kernel; }
  const Expr *getGrid() const { return Grid; }
  const Expr *getBlock() const { return Block; }
  const Expr *getSharedBytes() const { return SharedBytes; }
  const Expr *getStream() const { return Stream; }
  const std::vector<const Expr *> &getArgs() const { return Args; }
  static bool classof(const Stmt *S) { return S->getKind() == Kind::Launch; }

private:
  Function *Kernel;
  const Expr *Grid, *Block, *SharedBytes, *Stream;
  std::vector<const Expr *> Args;
  bool ViaMacro;
};

//===----------------------------------------------------------------------===//
// Functions and modules
//===----------------------------------------------------------------------===//

/// Where a function runs, from its CUDA attributes.
enum class CudaTarget { HostOnly, Device, HostDevice, Global };

/// A function: a lowered user function or a generated derivative.
class Function {
public:
  Function(std::string Name, const Type *ReturnType, CudaTarget Target)
      : Name(std::move(Name)), ReturnType(ReturnType), Target(Target) {}

  /// The identifier ("f"), also for template specializations.
  const std::string &getName() const { return Name; }
  void setName(std::string N) { Name = std::move(N); }
  /// Explicit template arguments to spell a call with ("<double>"), empty for
  /// non-templates. Generated functions are never templates.
  const std::string &getTemplateArgs() const { return TemplateArgs; }
  void setTemplateArgs(std::string A) { TemplateArgs = std::move(A); }
  /// The namespace the function belongs to, as a qualified name spells it
  /// ("ns::inner"; empty for the global namespace). Generated functions
  /// are placed beside their primal, in its namespace.
  const std::string &getNamespace() const { return Namespace; }
  void setNamespace(std::string N) { Namespace = std::move(N); }
  const Type *getReturnType() const { return ReturnType; }
  void setReturnType(const Type *T) { ReturnType = T; }
  CudaTarget getTarget() const { return Target; }
  bool isKernel() const { return Target == CudaTarget::Global; }
  /// 0 for a user function, 1 for its derivatives, 2 for derivatives of
  /// those (forward over reverse)...: generated names say the order.
  unsigned getDerivativeOrder() const { return DerivativeOrder; }
  void setDerivativeOrder(unsigned N) { DerivativeOrder = N; }

  const std::vector<Var *> &getParams() const { return Params; }
  void addParam(Var *P) { Params.push_back(P); }
  void setParams(std::vector<Var *> Ps) { Params = std::move(Ps); }
  Var *getParam(unsigned I) const { return Params[I]; }
  unsigned getNumParams() const { return Params.size(); }
  /// Index of \p P among the parameters, or -1.
  int getParamIndex(const Var *P) const;

  /// Null for a declaration (a callee whose body is not available).
  BlockStmt *getBody() const { return Body; }
  void setBody(BlockStmt *B) { Body = B; }

  /// Extra text before the return type ("inline", "static").
  const std::string &getQualifiers() const { return Qualifiers; }
  void setQualifiers(std::string Q) { Qualifiers = std::move(Q); }

  /// The Clang declaration this function was lowered from (null for
  /// generated functions). Opaque to keep the IR free of AST headers.
  const void *getSourceDecl() const { return SourceDecl; }
  void setSourceDecl(const void *D) { SourceDecl = D; }
  clang::SourceLocation getLoc() const { return Loc; }
  void setLoc(clang::SourceLocation L) { Loc = L; }

  /// What a lowered `operator()` is called on (Lower/LowerFunctors.cpp): a
  /// functor object, passed as the first parameter `self` (a call of the
  /// primal is spelled `f(x)`), or a lambda, whose captures are the first
  /// parameters (its primal is emitted as a free function). Derivatives
  /// are ordinary functions (None).
  enum class CallOperatorKind { None, Functor, Lambda };
  CallOperatorKind getCallOperatorKind() const { return CallOperator; }
  void setCallOperatorKind(CallOperatorKind K) { CallOperator = K; }

private:
  CallOperatorKind CallOperator = CallOperatorKind::None;
  std::string Name;
  std::string TemplateArgs;
  std::string Namespace;
  const Type *ReturnType;
  CudaTarget Target;
  std::vector<Var *> Params;
  BlockStmt *Body = nullptr;
  std::string Qualifiers;
  const void *SourceDecl = nullptr;
  clang::SourceLocation Loc;
  unsigned DerivativeOrder = 0;
};

/// Owns every IR node, variable, function and type of one translation unit.
class Module {
public:
  TypeContext &getTypes() { return Types; }

  /// Creates a node owned by the module.
  template <class T, class... Args> T *create(Args &&...A) {
    auto Node = std::make_unique<T>(std::forward<Args>(A)...);
    T *Raw = Node.get();
    store(std::move(Node));
    return Raw;
  }

  Var *createVar(std::string Name, const Type *Ty,
                 Var::Storage S = Var::Storage::Local,
                 VarRoles Roles = VarRoles::Primal) {
    Vars.push_back(std::make_unique<Var>(std::move(Name), Ty, S, Roles));
    return Vars.back().get();
  }
  Function *createFunction(std::string Name, const Type *RetTy,
                           CudaTarget Target) {
    Functions.push_back(
        std::make_unique<Function>(std::move(Name), RetTy, Target));
    return Functions.back().get();
  }

private:
  void store(std::unique_ptr<Expr> E) { Exprs.push_back(std::move(E)); }
  void store(std::unique_ptr<Stmt> S) { Stmts.push_back(std::move(S)); }

  TypeContext Types;
  std::vector<std::unique_ptr<Expr>> Exprs;
  std::vector<std::unique_ptr<Stmt>> Stmts;
  std::vector<std::unique_ptr<Var>> Vars;
  std::vector<std::unique_ptr<Function>> Functions;
};

} // namespace ir
} // namespace meshad

#endif // MESHAD_IR_IR_H
