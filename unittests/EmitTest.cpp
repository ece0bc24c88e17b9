//===- unittests/EmitTest.cpp - Tests of the CUDA emitter -----------------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//

#include "Emit/CudaEmitter.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstdlib>
#include <random>

using namespace meshad;
using namespace meshad::ir;

namespace {

/// Builds IR by hand in a module.
class EmitTest : public ::testing::Test {
protected:
  TypeContext &types() { return M.getTypes(); }
  const Type *dbl() { return types().getDouble(); }
  const Type *flt() { return types().getFloat(); }
  const Type *i32() { return types().getInt(); }

  const Expr *ref(Var *V) { return M.create<VarRefExpr>(V); }
  const Expr *var(const std::string &Name, const Type *Ty = nullptr) {
    return ref(M.createVar(Name, Ty ? Ty : dbl()));
  }
  const Expr *dlit(double V, std::string Spelling = "") {
    return M.create<FloatLitExpr>(dbl(), V, std::move(Spelling));
  }
  const Expr *flit(double V) { return M.create<FloatLitExpr>(flt(), V, ""); }
  const Expr *ilit(long long V) { return M.create<IntLitExpr>(i32(), V, ""); }
  const Expr *bin(BinaryOp Op, const Expr *L, const Expr *R) {
    return M.create<BinaryExpr>(L->getType(), Op, L, R);
  }
  const Expr *un(UnaryOp Op, const Expr *Sub) {
    return M.create<UnaryExpr>(Sub->getType(), Op, Sub);
  }
  const Expr *index(const Expr *Base, const Expr *Idx) {
    return M.create<IndexExpr>(Base->getType()->getElement(), Base, Idx);
  }
  const Expr *call(const std::string &Name, std::vector<const Expr *> Args) {
    return M.create<CallExpr>(dbl(), CallExpr::CalleeKind::Math, Name, 0,
                              std::move(Args));
  }
  const Expr *builtin(BuiltinExpr::Builtin B, unsigned Dim) {
    return M.create<BuiltinExpr>(types().getInt("unsigned int"), B, Dim);
  }
  const Stmt *assign(const Expr *L, AssignOp Op, const Expr *R) {
    return M.create<AssignStmt>(L, Op, R);
  }
  BlockStmt *block(std::vector<const Stmt *> Body) {
    return M.create<BlockStmt>(std::move(Body));
  }
  std::string expr(const Expr *E) { return CudaEmitter::emitExpr(E); }
  std::string stmt(const Stmt *S, unsigned Indent = 0) {
    return CudaEmitter::emitStmt(S, Indent);
  }

  Module M;
  const Expr *A = var("a"), *B = var("b"), *C = var("c"), *X = var("x");
};

//===----------------------------------------------------------------------===//
// Literals
//===----------------------------------------------------------------------===//

TEST_F(EmitTest, FloatLiteralsRoundTripAndKeepTheirDot) {
  EXPECT_EQ(expr(dlit(0.5)), "0.5");
  EXPECT_EQ(expr(dlit(1.0)), "1.");
  EXPECT_EQ(expr(dlit(2.0)), "2.");
  EXPECT_EQ(expr(dlit(0.1)), "0.1");
  EXPECT_EQ(expr(dlit(1.0 / 3.0)), "0.3333333333333333");
  EXPECT_EQ(expr(dlit(1e20)), "1e+20");
  EXPECT_EQ(expr(dlit(1.5e-7)), "1.5e-07");
  EXPECT_EQ(expr(dlit(0.0)), "0.");
  EXPECT_EQ(expr(dlit(-0.5)), "(-0.5)");
  EXPECT_EQ(expr(dlit(-0.0)), "(-0.)");
}

TEST_F(EmitTest, FloatTypedLiteralsGetSuffix) {
  EXPECT_EQ(expr(flit(1.0)), "1.f");
  EXPECT_EQ(expr(flit(0.5)), "0.5f");
  EXPECT_EQ(expr(flit(static_cast<float>(0.1))), "0.1f");
  EXPECT_EQ(expr(flit(static_cast<float>(1.0 / 3.0))), "0.33333334f");
  EXPECT_EQ(expr(flit(-2.0)), "(-2.f)");
}

/// Reads a printed literal back: strips "(", ")" and a trailing 'f'.
std::string stripLiteral(std::string S) {
  if (!S.empty() && S.front() == '(')
    S = S.substr(1, S.size() - 2);
  if (!S.empty() && S.back() == 'f')
    S.pop_back();
  return S;
}

TEST_F(EmitTest, FloatLiteralsRoundTripExactly) {
  std::mt19937_64 Rng(42);
  std::uniform_real_distribution<double> Mantissa(-1.0, 1.0);
  std::uniform_int_distribution<int> Exponent(-40, 40);
  for (int I = 0; I < 2000; ++I) {
    double V = std::ldexp(Mantissa(Rng), Exponent(Rng));
    std::string D = expr(dlit(V));
    EXPECT_EQ(std::strtod(stripLiteral(D).c_str(), nullptr), V) << D;
    EXPECT_NE(D.find_first_of(".e"), std::string::npos) << D;
    float F = static_cast<float>(V);
    std::string FS = expr(flit(F));
    EXPECT_EQ(std::strtof(stripLiteral(FS).c_str(), nullptr), F) << FS;
    EXPECT_EQ(FS.back() == ')' ? FS[FS.size() - 2] : FS.back(), 'f') << FS;
  }
}

TEST_F(EmitTest, NonFiniteLiterals) {
  EXPECT_EQ(expr(dlit(HUGE_VAL)), "__builtin_inf()");
  EXPECT_EQ(expr(dlit(-HUGE_VAL)), "(-__builtin_inf())");
  EXPECT_EQ(expr(flit(HUGE_VAL)), "__builtin_inff()");
  EXPECT_EQ(expr(dlit(NAN)), "__builtin_nan(\"\")");
}

TEST_F(EmitTest, LiteralSpellingsAreKept) {
  EXPECT_EQ(expr(dlit(0.5, "0.5f")), "0.5f");
  EXPECT_EQ(expr(dlit(1e-3, "1e-3")), "1e-3");
  EXPECT_EQ(expr(M.create<IntLitExpr>(i32(), 16, "0x10")), "0x10");
  EXPECT_EQ(expr(M.create<IntLitExpr>(i32(), 16, "16u")), "16u");
  EXPECT_EQ(expr(ilit(42)), "42");
  EXPECT_EQ(expr(ilit(-3)), "(-3)");
  EXPECT_EQ(expr(M.create<BoolLitExpr>(types().getBool(), true)), "true");
  EXPECT_EQ(expr(M.create<BoolLitExpr>(types().getBool(), false)), "false");
}

//===----------------------------------------------------------------------===//
// Expression nodes
//===----------------------------------------------------------------------===//

TEST_F(EmitTest, Builtins) {
  using BI = BuiltinExpr::Builtin;
  EXPECT_EQ(expr(builtin(BI::ThreadIdx, 0)), "threadIdx.x");
  EXPECT_EQ(expr(builtin(BI::BlockIdx, 1)), "blockIdx.y");
  EXPECT_EQ(expr(builtin(BI::BlockDim, 2)), "blockDim.z");
  EXPECT_EQ(expr(builtin(BI::GridDim, 0)), "gridDim.x");
  EXPECT_EQ(expr(builtin(BI::WarpSize, 0)), "warpSize");
  // The usual global index.
  const Expr *Gid = bin(
      BinaryOp::Add,
      bin(BinaryOp::Mul, builtin(BI::BlockIdx, 0), builtin(BI::BlockDim, 0)),
      builtin(BI::ThreadIdx, 0));
  EXPECT_EQ(expr(Gid), "blockIdx.x * blockDim.x + threadIdx.x");
}

TEST_F(EmitTest, MemberIndexAndPointers) {
  const Type *F3 = types().getVector(dbl(), 3);
  const Expr *V = var("v", F3);
  const Expr *P = var("p", types().getPointer(F3));
  const Expr *Arr = var("arr", types().getPointer(dbl()));
  EXPECT_EQ(expr(M.create<MemberExpr>(dbl(), V, "x", false)), "v.x");
  EXPECT_EQ(expr(M.create<MemberExpr>(dbl(), P, "y", true)), "p->y");
  EXPECT_EQ(expr(index(Arr, var("i", i32()))), "arr[i]");
  const Expr *I = var("i", i32());
  EXPECT_EQ(expr(index(Arr, bin(BinaryOp::Add, I, ilit(1)))), "arr[i + 1]");
  EXPECT_EQ(expr(M.create<MemberExpr>(dbl(), index(P, I), "z", false)),
            "p[i].z");
  EXPECT_EQ(expr(un(UnaryOp::Deref, Arr)), "*arr");
  EXPECT_EQ(expr(un(UnaryOp::AddrOf, index(Arr, ilit(0)))), "&arr[0]");
  EXPECT_EQ(expr(un(UnaryOp::Deref, bin(BinaryOp::Add, Arr, I))), "*(arr + i)");
  // (*pp)[i]: a postfix operator on a unary operand.
  const Expr *PP = var("pp", types().getPointer(types().getPointer(dbl())));
  EXPECT_EQ(expr(index(un(UnaryOp::Deref, PP), I)), "(*pp)[i]");
  EXPECT_EQ(
      expr(M.create<MemberExpr>(dbl(), un(UnaryOp::Deref, P), "x", false)),
      "(*p).x");
}

TEST_F(EmitTest, UnaryOperators) {
  EXPECT_EQ(expr(un(UnaryOp::Neg, X)), "-x");
  EXPECT_EQ(expr(un(UnaryOp::Plus, X)), "+x");
  EXPECT_EQ(expr(un(UnaryOp::Not, X)), "!x");
  EXPECT_EQ(expr(un(UnaryOp::BitNot, X)), "~x");
  EXPECT_EQ(expr(un(UnaryOp::Neg, un(UnaryOp::Neg, X))), "-(-x)");
  EXPECT_EQ(expr(un(UnaryOp::Plus, un(UnaryOp::Plus, X))), "+(+x)");
  EXPECT_EQ(expr(un(UnaryOp::Neg, un(UnaryOp::Plus, X))), "-(+x)");
  EXPECT_EQ(expr(un(UnaryOp::Not, un(UnaryOp::Not, X))), "!!x");
  EXPECT_EQ(expr(un(UnaryOp::Neg, bin(BinaryOp::Add, A, B))), "-(a + b)");
  EXPECT_EQ(expr(un(UnaryOp::Neg, dlit(-2.0))), "-(-2.)");
  EXPECT_EQ(expr(un(UnaryOp::Neg, call("sin", {X}))), "-sin(x)");
}

TEST_F(EmitTest, Casts) {
  const Expr *I = var("i", i32());
  EXPECT_EQ(expr(M.create<CastExpr>(dbl(), I)), "(double)i");
  EXPECT_EQ(expr(M.create<CastExpr>(dbl(), bin(BinaryOp::Add, A, B))),
            "(double)(a + b)");
  EXPECT_EQ(expr(M.create<CastExpr>(flt(), un(UnaryOp::Neg, X))),
            "(float)(-x)");
  EXPECT_EQ(expr(M.create<CastExpr>(dbl(), call("sinf", {X}))),
            "(double)sinf(x)");
  EXPECT_EQ(expr(M.create<CastExpr>(dbl(), M.create<CastExpr>(flt(), X))),
            "(double)((float)x)");
  // A cast operand of a binary operator needs no parentheses.
  EXPECT_EQ(expr(bin(BinaryOp::Mul, M.create<CastExpr>(dbl(), I), X)),
            "(double)i * x");
}

TEST_F(EmitTest, Calls) {
  EXPECT_EQ(expr(call("pow", {X, dlit(2.0)})), "pow(x, 2.)");
  EXPECT_EQ(expr(M.create<CallExpr>(
                types().getVoid(), CallExpr::CalleeKind::Intrinsic,
                "__syncthreads", -1, std::vector<const Expr *>{})),
            "__syncthreads()");
  Function *F = M.createFunction("square", dbl(), CudaTarget::Device);
  EXPECT_EQ(expr(M.create<CallExpr>(
                dbl(), F, std::vector<const Expr *>{bin(BinaryOp::Add, A, B)})),
            "square(a + b)");
  F->setTemplateArgs("<double, 3>");
  EXPECT_EQ(expr(M.create<CallExpr>(dbl(), F, std::vector<const Expr *>{A})),
            "square<double, 3>(a)");
}

TEST_F(EmitTest, ConditionalAndInitList) {
  const Expr *Cmp = bin(BinaryOp::Lt, A, B);
  const Expr *Cond = M.create<ConditionalExpr>(dbl(), Cmp, A, B);
  EXPECT_EQ(expr(Cond), "a < b ? a : b");
  EXPECT_EQ(expr(bin(BinaryOp::Mul, Cond, X)), "(a < b ? a : b) * x");
  const Expr *Chain = M.create<ConditionalExpr>(
      dbl(), Cmp, A, M.create<ConditionalExpr>(dbl(), C, B, X));
  EXPECT_EQ(expr(Chain), "a < b ? a : c ? b : x");
  const Expr *Nested = M.create<ConditionalExpr>(
      dbl(), M.create<ConditionalExpr>(dbl(), C, B, X), A, B);
  EXPECT_EQ(expr(Nested), "(c ? b : x) ? a : b");
  const Expr *InTrue = M.create<ConditionalExpr>(
      dbl(), C, M.create<ConditionalExpr>(dbl(), Cmp, B, X), A);
  EXPECT_EQ(expr(InTrue), "c ? (a < b ? b : x) : a");
  EXPECT_EQ(
      expr(M.create<InitListExpr>(
          types().getArray(dbl(), 3),
          std::vector<const Expr *>{A, bin(BinaryOp::Add, B, C), dlit(1.0)})),
      "{a, b + c, 1.}");
}

//===----------------------------------------------------------------------===//
// Precedence
//===----------------------------------------------------------------------===//

TEST_F(EmitTest, ArithmeticPrecedence) {
  EXPECT_EQ(expr(bin(BinaryOp::Sub, A, bin(BinaryOp::Sub, B, C))),
            "a - (b - c)");
  EXPECT_EQ(expr(bin(BinaryOp::Sub, bin(BinaryOp::Sub, A, B), C)), "a - b - c");
  EXPECT_EQ(expr(bin(BinaryOp::Div, A, bin(BinaryOp::Mul, B, C))),
            "a / (b * c)");
  EXPECT_EQ(expr(bin(BinaryOp::Mul, bin(BinaryOp::Add, A, B), C)),
            "(a + b) * c");
  EXPECT_EQ(expr(bin(BinaryOp::Add, A, bin(BinaryOp::Mul, B, C))), "a + b * c");
  EXPECT_EQ(expr(bin(BinaryOp::Add, bin(BinaryOp::Mul, A, B), C)), "a * b + c");
  // Floating-point addition is not associative: keep the tree's order.
  EXPECT_EQ(expr(bin(BinaryOp::Add, A, bin(BinaryOp::Add, B, C))),
            "a + (b + c)");
  EXPECT_EQ(expr(bin(BinaryOp::Mul, A, bin(BinaryOp::Div, B, C))),
            "a * (b / c)");
  EXPECT_EQ(expr(bin(BinaryOp::Div, bin(BinaryOp::Mul, A, B), C)), "a * b / c");
}

TEST_F(EmitTest, SignsNeverTouch) {
  const Expr *NegB = un(UnaryOp::Neg, B);
  EXPECT_EQ(expr(bin(BinaryOp::Sub, A, NegB)), "a - (-b)");
  EXPECT_EQ(expr(bin(BinaryOp::Add, A, NegB)), "a + (-b)");
  EXPECT_EQ(expr(bin(BinaryOp::Add, A, un(UnaryOp::Plus, B))), "a + (+b)");
  EXPECT_EQ(expr(bin(BinaryOp::Sub, NegB, A)), "-b - a");
  EXPECT_EQ(expr(bin(BinaryOp::Mul, A, NegB)), "a * -b");
  EXPECT_EQ(expr(bin(BinaryOp::Sub, A, dlit(-1.0))), "a - (-1.)");
  EXPECT_EQ(expr(bin(BinaryOp::Sub, A, ilit(-1))), "a - (-1)");
}

TEST_F(EmitTest, LogicalAndBitwisePrecedence) {
  const Expr *I = var("i", i32()), *J = var("j", i32()), *K = var("k", i32());
  const Expr *Lt = bin(BinaryOp::Lt, I, J), *Gt = bin(BinaryOp::Gt, J, K);
  EXPECT_EQ(expr(bin(BinaryOp::LAnd, Lt, Gt)), "i < j && j > k");
  EXPECT_EQ(expr(bin(BinaryOp::LOr, bin(BinaryOp::LAnd, Lt, Gt), Lt)),
            "(i < j && j > k) || i < j");
  EXPECT_EQ(expr(bin(BinaryOp::LAnd, bin(BinaryOp::LOr, Lt, Gt), Lt)),
            "(i < j || j > k) && i < j");
  EXPECT_EQ(expr(bin(BinaryOp::Eq, bin(BinaryOp::Rem, I, ilit(2)), ilit(0))),
            "i % 2 == 0");
  EXPECT_EQ(expr(bin(BinaryOp::BitOr, bin(BinaryOp::BitAnd, I, J), K)),
            "(i & j) | k");
  EXPECT_EQ(expr(bin(BinaryOp::BitAnd, I, bin(BinaryOp::Eq, J, K))),
            "i & (j == k)");
  EXPECT_EQ(expr(bin(BinaryOp::Shl, I, bin(BinaryOp::Add, J, K))),
            "i << (j + k)");
  EXPECT_EQ(expr(bin(BinaryOp::Shr, bin(BinaryOp::Shr, I, J), K)),
            "i >> j >> k");
  EXPECT_EQ(expr(bin(BinaryOp::BitXor, I, bin(BinaryOp::BitXor, J, K))),
            "i ^ (j ^ k)");
  EXPECT_EQ(expr(un(UnaryOp::Not, bin(BinaryOp::Lt, I, J))), "!(i < j)");
}

//===----------------------------------------------------------------------===//
// Statements
//===----------------------------------------------------------------------===//

TEST_F(EmitTest, Declarations) {
  Var *Y = M.createVar("y", dbl());
  EXPECT_EQ(stmt(M.create<DeclStmt>(Y, bin(BinaryOp::Mul, A, B))),
            "double y = a * b;\n");
  EXPECT_EQ(stmt(M.create<DeclStmt>(Y, nullptr), 4), "    double y;\n");
  const Type *Arr3 = types().getArray(dbl(), 3);
  Var *Arr = M.createVar("arr", Arr3);
  EXPECT_EQ(stmt(M.create<DeclStmt>(
                Arr, M.create<InitListExpr>(
                         Arr3, std::vector<const Expr *>{A, B, dlit(0.0)}))),
            "double arr[3] = {a, b, 0.};\n");
  Var *Cst = M.createVar("k", types().getConst(flt()));
  EXPECT_EQ(stmt(M.create<DeclStmt>(Cst, flit(2.0))), "const float k = 2.f;\n");
  Var *Tile =
      M.createVar("tile", types().getArray(dbl(), 256), Var::Storage::Shared);
  EXPECT_EQ(stmt(M.create<DeclStmt>(Tile, nullptr), 2),
            "  __shared__ double tile[256];\n");
  Var *Tile2 =
      M.createVar("tile2", types().getArray(types().getArray(flt(), 16), 8),
                  Var::Storage::Shared);
  EXPECT_EQ(stmt(M.create<DeclStmt>(Tile2, nullptr)),
            "__shared__ float tile2[8][16];\n");
  Var *G = M.createVar("gScale", dbl(), Var::Storage::Global);
  EXPECT_EQ(stmt(M.create<DeclStmt>(G, dlit(1.0))), "");
  EXPECT_EQ(expr(ref(G)), "gScale");
}

TEST_F(EmitTest, Assignments) {
  const Expr *Arr = var("arr", types().getPointer(dbl()));
  const Expr *I = var("i", i32());
  EXPECT_EQ(stmt(assign(X, AssignOp::Assign, A)), "x = a;\n");
  EXPECT_EQ(
      stmt(assign(index(Arr, I), AssignOp::AddAssign, bin(BinaryOp::Mul, A, B)),
           2),
      "  arr[i] += a * b;\n");
  EXPECT_EQ(stmt(assign(X, AssignOp::SubAssign, A)), "x -= a;\n");
  EXPECT_EQ(stmt(assign(X, AssignOp::MulAssign, A)), "x *= a;\n");
  EXPECT_EQ(stmt(assign(X, AssignOp::DivAssign, bin(BinaryOp::Add, A, B))),
            "x /= a + b;\n");
  EXPECT_EQ(stmt(assign(I, AssignOp::Inc, nullptr)), "++i;\n");
  EXPECT_EQ(stmt(assign(I, AssignOp::Dec, nullptr)), "--i;\n");
  EXPECT_EQ(stmt(assign(un(UnaryOp::Deref, Arr), AssignOp::Assign, X)),
            "*arr = x;\n");
  const Expr *Atomic = M.create<CallExpr>(
      dbl(), CallExpr::CalleeKind::Intrinsic, "atomicAdd", -1,
      std::vector<const Expr *>{un(UnaryOp::AddrOf, index(Arr, I)), X});
  EXPECT_EQ(stmt(M.create<ExprStmt>(Atomic), 2), "  atomicAdd(&arr[i], x);\n");
}

TEST_F(EmitTest, SimpleStatements) {
  EXPECT_EQ(stmt(M.create<BreakStmt>(), 2), "  break;\n");
  EXPECT_EQ(stmt(M.create<ContinueStmt>()), "continue;\n");
  EXPECT_EQ(stmt(M.create<ReturnStmt>(nullptr)), "return;\n");
  EXPECT_EQ(stmt(M.create<ReturnStmt>(bin(BinaryOp::Add, A, B)), 2),
            "  return a + b;\n");
  EXPECT_EQ(stmt(M.create<CommentStmt>("forward sweep"), 2),
            "  // forward sweep\n");
  EXPECT_EQ(stmt(M.create<CommentStmt>("two\nlines")), "// two\n// lines\n");
  EXPECT_EQ(stmt(block({}), 2), "  {\n  }\n");
  EXPECT_EQ(stmt(block({assign(X, AssignOp::Assign, A)})), "{\n  x = a;\n}\n");
}

TEST_F(EmitTest, IfElseIfChains) {
  const Expr *I = var("i", i32());
  const Stmt *If1 =
      M.create<IfStmt>(bin(BinaryOp::Lt, A, B),
                       block({assign(X, AssignOp::Assign, A)}), nullptr);
  EXPECT_EQ(stmt(If1, 2), "  if (a < b) {\n"
                          "    x = a;\n"
                          "  }\n");
  const Stmt *If2 = M.create<IfStmt>(bin(BinaryOp::Lt, A, B),
                                     block({assign(X, AssignOp::Assign, A)}),
                                     block({assign(X, AssignOp::Assign, B)}));
  EXPECT_EQ(stmt(If2), "if (a < b) {\n"
                       "  x = a;\n"
                       "} else {\n"
                       "  x = b;\n"
                       "}\n");
  const Stmt *Chain = M.create<IfStmt>(
      bin(BinaryOp::Eq, I, ilit(0)), block({assign(X, AssignOp::Assign, A)}),
      block({M.create<IfStmt>(bin(BinaryOp::Eq, I, ilit(1)),
                              block({assign(X, AssignOp::Assign, B)}),
                              block({assign(X, AssignOp::Assign, C)}))}));
  EXPECT_EQ(stmt(Chain, 2), "  if (i == 0) {\n"
                            "    x = a;\n"
                            "  } else if (i == 1) {\n"
                            "    x = b;\n"
                            "  } else {\n"
                            "    x = c;\n"
                            "  }\n");
  // An else block holding an if and something else stays a block; an empty
  // then-branch is printed as the negated condition.
  const Stmt *NotChain = M.create<IfStmt>(
      C, block({}), block({If1, assign(X, AssignOp::Assign, C)}));
  EXPECT_EQ(stmt(NotChain), "if (!c) {\n"
                            "  if (a < b) {\n"
                            "    x = a;\n"
                            "  }\n"
                            "  x = c;\n"
                            "}\n");
}

TEST_F(EmitTest, Loops) {
  Var *I = M.createVar("i", i32());
  const Expr *N = var("n", i32());
  const Stmt *For = M.create<ForStmt>(
      M.create<DeclStmt>(I, ilit(0)), bin(BinaryOp::Lt, ref(I), N),
      assign(ref(I), AssignOp::Inc, nullptr),
      block({assign(X, AssignOp::AddAssign, ref(I))}));
  EXPECT_EQ(stmt(For, 2), "  for (int i = 0; i < n; ++i) {\n"
                          "    x += i;\n"
                          "  }\n");
  const Stmt *Strided =
      M.create<ForStmt>(assign(ref(I), AssignOp::Assign,
                               builtin(BuiltinExpr::Builtin::ThreadIdx, 0)),
                        bin(BinaryOp::Lt, ref(I), N),
                        assign(ref(I), AssignOp::AddAssign,
                               builtin(BuiltinExpr::Builtin::BlockDim, 0)),
                        block({}));
  EXPECT_EQ(stmt(Strided),
            "for (i = threadIdx.x; i < n; i += blockDim.x) {\n}\n");
  const Stmt *Forever = M.create<ForStmt>(nullptr, nullptr, nullptr,
                                          block({M.create<BreakStmt>()}));
  EXPECT_EQ(stmt(Forever), "for (;;) {\n  break;\n}\n");
  const Stmt *While =
      M.create<WhileStmt>(bin(BinaryOp::Gt, X, A),
                          block({assign(X, AssignOp::MulAssign, dlit(0.5))}));
  EXPECT_EQ(stmt(While, 2), "  while (x > a) {\n"
                            "    x *= 0.5;\n"
                            "  }\n");
  const Stmt *Do = M.create<DoStmt>(
      block({assign(ref(I), AssignOp::Dec, nullptr), M.create<ContinueStmt>()}),
      bin(BinaryOp::Gt, ref(I), ilit(0)));
  EXPECT_EQ(stmt(Do, 2), "  do {\n"
                         "    --i;\n"
                         "    continue;\n"
                         "  } while (i > 0);\n");
}

//===----------------------------------------------------------------------===//
// Functions
//===----------------------------------------------------------------------===//

/// f(x, p) = x * p[0], with the given target.
Function *makeScale(Module &M, CudaTarget Target) {
  TypeContext &T = M.getTypes();
  Function *F = M.createFunction("scale", T.getDouble(), Target);
  Var *X = M.createVar("x", T.getDouble(), Var::Storage::Param);
  Var *P = M.createVar("p", T.getPointer(T.getConst(T.getDouble())),
                       Var::Storage::Param);
  F->addParam(X);
  F->addParam(P);
  const Expr *P0 =
      M.create<IndexExpr>(T.getConst(T.getDouble()), M.create<VarRefExpr>(P),
                          M.create<IntLitExpr>(T.getInt(), 0, ""));
  const Expr *Mul = M.create<BinaryExpr>(T.getDouble(), BinaryOp::Mul,
                                         M.create<VarRefExpr>(X), P0);
  F->setBody(M.create<BlockStmt>(
      std::vector<const Stmt *>{M.create<ReturnStmt>(Mul)}));
  return F;
}

TEST_F(EmitTest, FunctionTargets) {
  const char *Body = " {\n  return x * p[0];\n}\n";
  const std::string Sig = "double scale(double x, const double *p)";
  EXPECT_EQ(CudaEmitter::emitDefinition(*makeScale(M, CudaTarget::HostOnly)),
            Sig + Body);
  EXPECT_EQ(CudaEmitter::emitDefinition(*makeScale(M, CudaTarget::Device)),
            "__device__ " + Sig + Body);
  EXPECT_EQ(CudaEmitter::emitDefinition(*makeScale(M, CudaTarget::HostDevice)),
            "__host__ __device__ " + Sig + Body);
  Function *Inline = makeScale(M, CudaTarget::Device);
  Inline->setQualifiers("inline");
  EXPECT_EQ(CudaEmitter::emitDefinition(*Inline),
            "__device__ inline " + Sig + Body);
  EXPECT_EQ(CudaEmitter::emitPrototype(*Inline),
            "__device__ inline " + Sig + ";\n");
  EXPECT_EQ(CudaEmitter::emitPrototype(*makeScale(M, CudaTarget::HostOnly)),
            Sig + ";\n");
  EXPECT_EQ(CudaEmitter::emitFunctionPointerType(*Inline),
            "double (*)(double, const double *)");
}

TEST_F(EmitTest, KernelWithSharedTileAndLoop) {
  TypeContext &T = types();
  Function *K = M.createFunction("blockSum", T.getVoid(), CudaTarget::Global);
  Var *In =
      M.createVar("in", T.getPointer(T.getConst(flt())), Var::Storage::Param);
  Var *Out = M.createVar("out", T.getPointer(flt()), Var::Storage::Param);
  Var *N = M.createVar("n", i32(), Var::Storage::Param);
  K->addParam(In);
  K->addParam(Out);
  K->addParam(N);
  Var *Tile = M.createVar("tile", T.getArray(flt(), 256), Var::Storage::Shared);
  Var *Tid = M.createVar("tid", T.getInt("unsigned int"));
  Var *S = M.createVar("s", i32());
  const Expr *TidE = ref(Tid);
  const Stmt *Load =
      assign(index(ref(Tile), TidE), AssignOp::Assign,
             M.create<ConditionalExpr>(flt(), bin(BinaryOp::Lt, TidE, ref(N)),
                                       index(ref(In), TidE), flit(0.0)));
  const Expr *Sync =
      M.create<CallExpr>(T.getVoid(), CallExpr::CalleeKind::Intrinsic,
                         "__syncthreads", -1, std::vector<const Expr *>{});
  const Stmt *Reduce = M.create<ForStmt>(
      M.create<DeclStmt>(S, ilit(128)), bin(BinaryOp::Gt, ref(S), ilit(0)),
      assign(ref(S), AssignOp::DivAssign, ilit(2)),
      block({M.create<IfStmt>(
                 bin(BinaryOp::Lt, TidE, ref(S)),
                 block({assign(
                     index(ref(Tile), TidE), AssignOp::AddAssign,
                     index(ref(Tile), bin(BinaryOp::Add, TidE, ref(S))))}),
                 nullptr),
             M.create<ExprStmt>(Sync)}));
  const Stmt *Write = M.create<IfStmt>(
      bin(BinaryOp::Eq, TidE, ilit(0)),
      block({assign(index(ref(Out), builtin(BuiltinExpr::Builtin::BlockIdx, 0)),
                    AssignOp::Assign, index(ref(Tile), ilit(0)))}),
      nullptr);
  K->setBody(block(
      {M.create<CommentStmt>("one block sums 256 values"),
       M.create<DeclStmt>(Tile, nullptr),
       M.create<DeclStmt>(Tid, builtin(BuiltinExpr::Builtin::ThreadIdx, 0)),
       Load, M.create<ExprStmt>(Sync), Reduce, Write}));
  EXPECT_EQ(CudaEmitter::emitDefinition(*K),
            "__global__ void blockSum(const float *in, float *out, int n) {\n"
            "  // one block sums 256 values\n"
            "  __shared__ float tile[256];\n"
            "  unsigned int tid = threadIdx.x;\n"
            "  tile[tid] = tid < n ? in[tid] : 0.f;\n"
            "  __syncthreads();\n"
            "  for (int s = 128; s > 0; s /= 2) {\n"
            "    if (tid < s) {\n"
            "      tile[tid] += tile[tid + s];\n"
            "    }\n"
            "    __syncthreads();\n"
            "  }\n"
            "  if (tid == 0) {\n"
            "    out[blockIdx.x] = tile[0];\n"
            "  }\n"
            "}\n");
  EXPECT_EQ(CudaEmitter::emitFunctionPointerType(*K),
            "void (*)(const float *, float *, int)");
}

TEST_F(EmitTest, EmptyBodyAndPointerReturn) {
  TypeContext &T = types();
  Function *F =
      M.createFunction("first", T.getPointer(dbl()), CudaTarget::HostDevice);
  F->addParam(M.createVar("v", T.getPointer(dbl()), Var::Storage::Param));
  EXPECT_EQ(CudaEmitter::emitPrototype(*F),
            "__host__ __device__ double *first(double *v);\n");
  // No body: a definition request gives the prototype.
  EXPECT_EQ(CudaEmitter::emitDefinition(*F),
            "__host__ __device__ double *first(double *v);\n");
  F->setBody(block({}));
  EXPECT_EQ(CudaEmitter::emitDefinition(*F),
            "__host__ __device__ double *first(double *v) {\n}\n");
  EXPECT_EQ(CudaEmitter::emitFunctionPointerType(*F), "double *(*)(double *)");
  Function *G = M.createFunction("noop", T.getVoid(), CudaTarget::Device);
  EXPECT_EQ(CudaEmitter::emitFunctionPointerType(*G), "void (*)()");
}

TEST_F(EmitTest, CallsOfFunctionsInNamespaces) {
  auto MakeFunction = [&](const std::string &Name, const std::string &NS) {
    Function *F = M.createFunction(Name, dbl(), CudaTarget::HostOnly);
    F->setNamespace(NS);
    F->addParam(M.createVar("x", dbl(), Var::Storage::Param));
    return F;
  };
  Function *Sq = MakeFunction("sq", "ns::inner");
  Sq->setTemplateArgs("<double>");
  Function *Glob = MakeFunction("h", "");
  auto CallOf = [&](Function *F) {
    return M.create<CallExpr>(dbl(), F, std::vector<const Expr *>{X});
  };
  // Without a context: from the global namespace.
  EXPECT_EQ(expr(CallOf(Sq)), "::ns::inner::sq<double>(x)");
  EXPECT_EQ(expr(CallOf(Glob)), "h(x)");
  // From inside the callee's namespace, unqualified, unless a variable of
  // the caller hides the name.
  Function *Caller = MakeFunction("f", "ns::inner");
  Var *Hides = M.createVar("h", dbl());
  Caller->setBody(block({M.create<DeclStmt>(Hides, CallOf(Sq)),
                         M.create<ReturnStmt>(bin(BinaryOp::Add, ref(Hides),
                                                  CallOf(Glob)))}));
  EXPECT_EQ(CudaEmitter::emitDefinition(*Caller),
            "double f(double x) {\n"
            "  double h = sq<double>(x);\n"
            "  return h + ::h(x);\n"
            "}\n");
  // Defined outside its namespace: the name says which one.
  EXPECT_EQ(CudaEmitter::emitDefinition(*Caller, /*QualifiedName=*/true)
                .substr(0, 31),
            "double ns::inner::f(double x) {");
}

} // namespace
