//===- Emit/StmtEmitter.cpp - IR statements to CUDA C++ text --------------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Statements print one per line with two-space indentation per nesting
/// level and the opening brace on the statement's line. Bodies of if, for,
/// while and do are always braced; "else { if ... }" prints as "else if".
///
//===----------------------------------------------------------------------===//

#include "Emit/CudaEmitter.h"
#include "IR/DynamicShared.h"

using namespace meshad;
using namespace meshad::ir;

namespace {

const char *spellAssignOp(AssignOp Op) {
  switch (Op) {
  case AssignOp::Assign:
    return " = ";
  case AssignOp::AddAssign:
    return " += ";
  case AssignOp::SubAssign:
    return " -= ";
  case AssignOp::MulAssign:
    return " *= ";
  case AssignOp::DivAssign:
    return " /= ";
  case AssignOp::Inc:
    return "++";
  case AssignOp::Dec:
    return "--";
  case AssignOp::Accumulate:
    // Lowered before emission (GPU/LowerAccumulations); one left over must
    // not compile as a plain, possibly racing, +=.
    return " MESHAD_UNLOWERED_ACCUMULATE ";
  }
  return " ? ";
}

/// Prints statements into one string.
class StmtPrinter {
public:
  explicit StmtPrinter(const EmitContext *Ctx) : Ctx(Ctx) {}
  std::string take() { return std::move(Out); }
  void print(const Stmt *S, unsigned Indent);

private:
  void printKind(const Stmt *S, unsigned Indent);
  std::string expr(const Expr *E) const {
    return CudaEmitter::emitExpr(E, Ctx);
  }
  std::string simpleStmtText(const Stmt *S) const;
  std::string negated(const Expr *Cond) const;
  std::string launchText(const LaunchStmt *L) const;
  void line(unsigned Indent, const std::string &Text) {
    Out.append(Indent, ' ');
    Out += Text;
    Out += '\n';
  }
  /// "{" is already printed; prints the statements and the closing brace
  /// (without its newline, so that "} else {" and "} while" can follow).
  void printBlockTail(const BlockStmt *B, unsigned Indent);
  void printIf(const IfStmt *S, unsigned Indent);
  void printFor(const ForStmt *S, unsigned Indent);
  void printWhile(const WhileStmt *S, unsigned Indent);
  void printDo(const DoStmt *S, unsigned Indent);
  /// One "//" line per line of the comment's text.
  void printComment(const CommentStmt *S, unsigned Indent);

  /// With line directives on: a `#line` before \p S's first line when the
  /// line it maps to is not the one that follows anyway.
  void markLine(const Stmt *S);

  const EmitContext *Ctx;
  std::string Out;
  /// The location of the innermost statement being printed that has one.
  clang::SourceLocation Enclosing;
  /// What the next line of Out is, as the last directive and the newlines
  /// since (up to ScannedTo) say.
  std::string CurrentFile;
  unsigned CurrentLine = 0;
  size_t ScannedTo = 0;
};

void StmtPrinter::markLine(const Stmt *S) {
  if (!Ctx || !Ctx->Lines)
    return;
  if (S->getLoc().isValid())
    Enclosing = S->getLoc();
  clang::SourceLocation Loc =
      Enclosing.isValid() ? Enclosing : Ctx->FallbackLoc;
  std::string File;
  unsigned Line;
  if (!Ctx->Lines->lookup(Loc, File, Line))
    return;
  for (; ScannedTo < Out.size(); ++ScannedTo)
    CurrentLine += Out[ScannedTo] == '\n';
  if (File == CurrentFile && Line == CurrentLine)
    return;
  Out += CudaEmitter::lineDirective(Line, File);
  CurrentFile = File;
  CurrentLine = Line;
  ScannedTo = Out.size();
}

/// The text of a declaration, assignment or expression statement without
/// its ';' (also the init and increment of a for loop). Empty for a global
/// variable's declaration, which is never emitted.
std::string StmtPrinter::simpleStmtText(const Stmt *S) const {
  if (const auto *D = llvm::dyn_cast<DeclStmt>(S)) {
    const Var *V = D->getVar();
    if (V->isGlobal())
      return "";
    // A kernel's dynamic shared memory, or its derivative's pointer.
    if (isDynamicShared(*V) && !D->getInit())
      return "MESHAD_DYNAMIC_SHARED(" + spellType(V->getType()->getElement()) +
             ", " + V->getName() + ")";
    std::string Text = V->isShared() && !isDynamicShared(*V) ? "__shared__ " : "";
    Text += spellDeclaration(V->getType(), V->getName());
    if (D->getInit())
      Text += " = " + expr(D->getInit());
    return Text;
  }
  if (const auto *A = llvm::dyn_cast<AssignStmt>(S)) {
    std::string LHS = expr(A->getLHS());
    if (A->getOp() == AssignOp::Inc || A->getOp() == AssignOp::Dec)
      return spellAssignOp(A->getOp()) + LHS;
    return LHS + spellAssignOp(A->getOp()) + expr(A->getRHS());
  }
  if (const auto *E = llvm::dyn_cast<ExprStmt>(S))
    return expr(E->getExpr());
  return "";
}

void StmtPrinter::print(const Stmt *S, unsigned Indent) {
  clang::SourceLocation Outer = Enclosing;
  markLine(S);
  printKind(S, Indent);
  Enclosing = Outer;
}

void StmtPrinter::printKind(const Stmt *S, unsigned Indent) {
  switch (S->getKind()) {
  case Stmt::Kind::Block:
    Out.append(Indent, ' ');
    Out += "{\n";
    printBlockTail(llvm::cast<BlockStmt>(S), Indent);
    Out += '\n';
    return;
  case Stmt::Kind::Decl:
    if (llvm::cast<DeclStmt>(S)->getVar()->isGlobal())
      return;
    [[fallthrough]];
  case Stmt::Kind::Assign:
  case Stmt::Kind::ExprStmt:
    line(Indent, simpleStmtText(S) + ";");
    return;
  case Stmt::Kind::If:
    Out.append(Indent, ' ');
    printIf(llvm::cast<IfStmt>(S), Indent);
    Out += '\n';
    return;
  case Stmt::Kind::For:
    printFor(llvm::cast<ForStmt>(S), Indent);
    return;
  case Stmt::Kind::While:
    printWhile(llvm::cast<WhileStmt>(S), Indent);
    return;
  case Stmt::Kind::Do:
    printDo(llvm::cast<DoStmt>(S), Indent);
    return;
  case Stmt::Kind::Break:
    line(Indent, "break;");
    return;
  case Stmt::Kind::Continue:
    line(Indent, "continue;");
    return;
  case Stmt::Kind::Return: {
    const Expr *V = llvm::cast<ReturnStmt>(S)->getValue();
    line(Indent, V ? "return " + expr(V) + ";" : "return;");
    return;
  }
  case Stmt::Kind::Launch:
    line(Indent, launchText(llvm::cast<LaunchStmt>(S)) + ";");
    return;
  case Stmt::Kind::Marker:
    return; // Only for the passes; the verifier reports a leftover one.
  case Stmt::Kind::Comment:
    printComment(llvm::cast<CommentStmt>(S), Indent);
    return;
  }
}

void StmtPrinter::printWhile(const WhileStmt *W, unsigned Indent) {
  line(Indent, "while (" + expr(W->getCond()) + ") {");
  printBlockTail(W->getBody(), Indent);
  Out += '\n';
}

void StmtPrinter::printDo(const DoStmt *D, unsigned Indent) {
  line(Indent, "do {");
  printBlockTail(D->getBody(), Indent);
  Out += " while (" + expr(D->getCond()) + ");\n";
}

void StmtPrinter::printComment(const CommentStmt *S, unsigned Indent) {
  const std::string &Text = S->getText();
  size_t Begin = 0;
  while (true) {
    size_t End = Text.find('\n', Begin);
    std::string Part = Text.substr(Begin, End - Begin);
    line(Indent, Part.empty() ? "//" : "// " + Part);
    if (End == std::string::npos)
      break;
    Begin = End + 1;
  }
}

std::string StmtPrinter::launchText(const LaunchStmt *L) const {
  std::string Config = expr(L->getGrid()) + ", " + expr(L->getBlock());
  if (L->getSharedBytes() || L->getStream())
    Config += ", " + (L->getSharedBytes() ? expr(L->getSharedBytes())
                                          : std::string("0"));
  if (L->getStream())
    Config += ", " + expr(L->getStream());
  std::string K = CudaEmitter::spellCallee(*L->getKernel(), Ctx);
  std::string Text = L->isViaMacro()
                         ? "MESHAD_LAUNCH(" + K + ", " + Config + ")("
                         : K + "<<<" + Config + ">>>(";
  for (size_t I = 0; I < L->getArgs().size(); ++I)
    Text += (I ? ", " : "") + expr(L->getArgs()[I]);
  return Text + ")";
}

void StmtPrinter::printBlockTail(const BlockStmt *B, unsigned Indent) {
  for (const Stmt *S : B->getBody())
    print(S, Indent + 2);
  Out.append(Indent, ' ');
  Out += '}';
}

/// `!c` for a simple condition, `!(c)` otherwise.
std::string StmtPrinter::negated(const Expr *Cond) const {
  std::string Text = expr(Cond);
  bool Simple = llvm::isa<VarRefExpr>(Cond) || llvm::isa<BoolLitExpr>(Cond) ||
                llvm::isa<IndexExpr>(Cond) || llvm::isa<MemberExpr>(Cond);
  return Simple ? "!" + Text : "!(" + Text + ")";
}

void StmtPrinter::printIf(const IfStmt *S, unsigned Indent) {
  const BlockStmt *Else = S->getElse();
  if (S->getThen()->getBody().empty() && Else && !Else->getBody().empty()) {
    // if (c) {} else {...} reads better as if (!c) {...}.
    Out += "if (" + negated(S->getCond()) + ") {\n";
    printBlockTail(Else, Indent);
    return;
  }
  Out += "if (" + expr(S->getCond()) + ") {\n";
  printBlockTail(S->getThen(), Indent);
  if (!Else)
    return;
  const auto &Body = Else->getBody();
  if (Body.size() == 1 && llvm::isa<IfStmt>(Body.front())) {
    Out += " else ";
    printIf(llvm::cast<IfStmt>(Body.front()), Indent);
    return;
  }
  Out += " else {\n";
  printBlockTail(Else, Indent);
}

void StmtPrinter::printFor(const ForStmt *S, unsigned Indent) {
  std::string Header = "for (";
  if (S->getInit())
    Header += simpleStmtText(S->getInit());
  Header += ";";
  if (S->getCond())
    Header += " " + expr(S->getCond());
  Header += ";";
  if (S->getInc())
    Header += " " + simpleStmtText(S->getInc());
  line(Indent, Header + ") {");
  printBlockTail(S->getBody(), Indent);
  Out += '\n';
}

} // namespace

std::string CudaEmitter::emitStmt(const Stmt *S, unsigned Indent,
                                  const EmitContext *Ctx) {
  StmtPrinter P(Ctx);
  P.print(S, Indent);
  return P.take();
}

std::string CudaEmitter::emitStmts(const BlockStmt *B, unsigned Indent,
                                   const EmitContext *Ctx) {
  StmtPrinter P(Ctx);
  for (const Stmt *S : B->getBody())
    P.print(S, Indent);
  return P.take();
}
