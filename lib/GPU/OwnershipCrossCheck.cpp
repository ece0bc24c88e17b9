//===- GPU/OwnershipCrossCheck.cpp - Ownership both ways ------------------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//

#include "GPU/OwnershipCrossCheck.h"
#include "GPU/AdjointOwnership.h"
#include "AD/Analysis/Activity.h"
#include "IR/Traversal.h"

#include "llvm/ADT/StringExtras.h"

using namespace meshad;
using namespace meshad::ir;
using llvm::dyn_cast;

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
          renameIdentifier(Finished.Reason, AdjointName, PrimalName));
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
        renameIdentifier(Finished.Reason, AdjointName, PrimalName));
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
    const std::string &Adjoint = A.Adjoint->getName();
    OwnershipResult Primal = OnPrimal.classify(A.Param);
    OwnershipResult Own = OnFinished.classify(A.Adjoint);
    AdjointOwnershipSource How;
    OwnershipResult Decided =
        classifyAdjoint(OnFinished, A.Adjoint, &OnPrimal, A.Param, &How);
    std::string At = "ownership cross-check of " + Name + " in " +
                     F.getName() + ": ";
    if (How == AdjointOwnershipSource::RecordedReads)
      Diags.warning(firstAddTo(F, A.Adjoint),
                    At + "decided on the primal reads that its adds "
                         "record; the finished function's own accesses: " +
                        ownershipDifferences(Primal, Own, Name, Adjoint));
    else if (std::string Diff =
                 ownershipDifferences(Primal, Decided, Name, Adjoint);
             !Diff.empty() && How == AdjointOwnershipSource::Finished)
      Diags.warning(firstAddTo(F, A.Adjoint), At + Diff);
  }
}
