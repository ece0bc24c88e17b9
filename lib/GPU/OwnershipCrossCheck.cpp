//===- GPU/OwnershipCrossCheck.cpp - Ownership both ways ------------------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//

#include "GPU/OwnershipCrossCheck.h"
#include "AD/Analysis/Activity.h"
#include "IR/Traversal.h"

#include "llvm/ADT/StringExtras.h"

using namespace meshad;
using namespace meshad::ir;
using llvm::dyn_cast;

/// \p Text with each identifier \p From spelled \p To.
static std::string renamed(const std::string &Text, const std::string &From,
                           const std::string &To) {
  auto IsIdent = [](char C) { return llvm::isAlnum(C) || C == '_'; };
  std::string Out;
  for (size_t I = 0; I < Text.size();) {
    bool Starts = (I == 0 || !IsIdent(Text[I - 1])) &&
                  Text.compare(I, From.size(), From) == 0;
    size_t End = I + From.size();
    if (Starts && (End == Text.size() || !IsIdent(Text[End]))) {
      Out += To;
      I = End;
      continue;
    }
    Out += Text[I++];
  }
  return Out;
}

namespace {

/// Collects "what: primal A, finished B" for each field that differs.
class Differences {
public:
  template <typename T>
  void add(const char *What, const T &Primal, const T &Finished) {
    if (Primal == Finished)
      return;
    if (!Text.empty())
      Text += "; ";
    Text += std::string(What) + ": primal " + spell(Primal) + ", finished " +
            spell(Finished);
  }
  std::string Text;

private:
  static std::string spell(const std::string &S) { return "'" + S + "'"; }
  static std::string spell(const char *S) { return S; }
  static std::string spell(bool B) { return B ? "yes" : "no"; }
  static std::string spell(long long V) { return std::to_string(V); }
  static std::string spell(unsigned V) { return std::to_string(V); }
};

} // namespace

std::string meshad::ownershipDifferences(const OwnershipResult &Primal,
                                         const OwnershipResult &Finished,
                                         const std::string &PrimalName,
                                         const std::string &AdjointName) {
  Differences D;
  D.add("class", getOwnershipName(Primal.Class),
        getOwnershipName(Finished.Class));
  if (Primal.Class != Finished.Class) {
    D.add("reason", Primal.Reason,
          renamed(Finished.Reason, AdjointName, PrimalName));
    return D.Text;
  }
  D.add("launch shape", Primal.LaunchDims, Finished.LaunchDims);
  if (Primal.Class == OwnershipClass::Uniform) {
    D.add("literal element", Primal.HasLiteralIndex, Finished.HasLiteralIndex);
    D.add("element", Primal.UniformIndex, Finished.UniformIndex);
  }
  if (Primal.Class == OwnershipClass::TileExclusive) {
    D.add("tile stride", Primal.TileStride, Finished.TileStride);
    D.add("tile low", Primal.TileLo, Finished.TileLo);
    D.add("tile high", Primal.TileHi, Finished.TileHi);
  }
  D.add("gather", Primal.ThroughIndexArray, Finished.ThroughIndexArray);
  D.add("element map", Primal.HasElementMap, Finished.HasElementMap);
  D.add("element count", Primal.HasElementCount, Finished.HasElementCount);
  D.add("reason", Primal.Reason,
        renamed(Finished.Reason, AdjointName, PrimalName));
  return D.Text;
}

/// Where \p F first adds to \p Adjoint (the function's location without).
static clang::SourceLocation firstAddTo(const Function &F, const Var *Adjoint) {
  clang::SourceLocation Loc;
  forEachStmt(F.getBody(), [&](const Stmt *S) {
    const auto *A = dyn_cast<AssignStmt>(S);
    if (Loc.isInvalid() && A && A->getOp() == AssignOp::Accumulate &&
        ActivityAnalysis::getRootVar(A->getLHS()) == Adjoint)
      Loc = S->getLoc();
  });
  return Loc.isValid() ? Loc : F.getLoc();
}

void meshad::crossCheckOwnership(const Function &F,
                                 const AccumulationFacts &Facts,
                                 DiagnosticSink &Diags) {
  if (!Facts.Primal || Facts.KernelArrays.empty() || Facts.ForceAtomics)
    return;
  OwnershipAnalysis OnPrimal(*Facts.Primal);
  OwnershipAnalysis OnFinished(F);
  for (const AdjointArray &A : Facts.KernelArrays) {
    const std::string &Name = A.Param->getName();
    std::string Diff =
        ownershipDifferences(OnPrimal.classify(A.Param),
                             OnFinished.classify(A.Adjoint), Name,
                             A.Adjoint->getName());
    if (!Diff.empty())
      Diags.warning(firstAddTo(F, A.Adjoint),
                    "ownership cross-check of " + Name + " in " +
                        F.getName() + ": " + Diff);
  }
}
