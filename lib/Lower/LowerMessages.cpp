//===- Lower/LowerMessages.cpp - Errors in the user's words ---------------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// What the lowering cannot represent, named as the user wrote it, with what
/// to write instead: a table of expression kinds, and conversions by their
/// types ("the cast from 'const double *' to 'const float *'").
///
//===----------------------------------------------------------------------===//

#include "Lower/LoweringImpl.h"

using namespace meshad;
using namespace clang;

namespace {

/// Expressions the IR cannot represent: their name in the user's words and
/// what to write instead.
struct UnsupportedExpr {
  Stmt::StmtClass Class;
  const char *What;
  const char *Instead;
};
const UnsupportedExpr UnsupportedExprs[] = {
    {Stmt::StringLiteralClass, "string literal",
     "strings may appear in assert and printf, which derivatives leave out"},
    {Stmt::PredefinedExprClass, "'__func__' or '__PRETTY_FUNCTION__'",
     "use it in assert or printf only, which derivatives leave out"},
    {Stmt::LambdaExprClass, "lambda expression", "write a named function"},
    {Stmt::CXXNewExprClass, "'new' expression",
     "use a local array of fixed size, or declare 'T *t = new T[N];' with "
     "a constant N or 'T *p = new T(v);'"},
    {Stmt::CXXDeleteExprClass, "'delete' expression",
     "use a local array of fixed size, or 'T *t = new T[N];' with a "
     "constant N"},
    {Stmt::CXXThrowExprClass, "'throw' expression",
     "check inputs before calling the differentiated function"},
    {Stmt::CXXThisExprClass, "use of 'this'",
     "write a free function that takes the object's members"},
    {Stmt::StmtExprClass, "statement expression '({ ... })'",
     "write the statements before the expression"},
    {Stmt::BinaryConditionalOperatorClass, "'?:' without a middle operand",
     "write 'a ? a : b'"},
    {Stmt::CXXDynamicCastExprClass, "'dynamic_cast'",
     "keep one type per value"},
    {Stmt::CXXReinterpretCastExprClass, "'reinterpret_cast'",
     "keep one type per array"},
    {Stmt::CXXConstCastExprClass, "'const_cast'",
     "declare the parameter or variable without const"},
    {Stmt::CXXTypeidExprClass, "'typeid'", "use templates or overloads"},
    {Stmt::VAArgExprClass, "'va_arg'", "pass a fixed list of parameters"},
    {Stmt::AtomicExprClass, "'__atomic' builtin",
     "use atomicAdd (CUDA) on the result"},
};

} // namespace

std::string meshad::describeUnsupportedExpr(const Expr *E) {
  for (const UnsupportedExpr &U : UnsupportedExprs)
    if (U.Class == E->getStmtClass())
      return std::string("meshad: ") + U.What + " is not supported; " +
             U.Instead;
  return std::string("meshad: this kind of expression is not supported "
                     "(Clang's '") +
         E->getStmtClassName() + "')";
}

std::string meshad::describeConversion(const CastExpr *E,
                                      const PrintingPolicy &P) {
  QualType From = E->getSubExpr()->getType(), To = E->getType();
  std::string Words;
  switch (E->getCastKind()) {
  case CK_DerivedToBase:
  case CK_UncheckedDerivedToBase:
    Words = " (to a base class)";
    break;
  case CK_BaseToDerived:
    Words = " (to a derived class)";
    break;
  case CK_UserDefinedConversion:
    Words = " (through a conversion operator)";
    break;
  case CK_VectorSplat:
    Words = " (a scalar used as a vector)";
    break;
  case CK_IntegralToPointer:
  case CK_PointerToIntegral:
    Words = " (between an integer and a pointer)";
    break;
  default:
    break;
  }
  return "from '" + From.getAsString(P) + "' to '" + To.getAsString(P) + "'" +
         Words;
}

