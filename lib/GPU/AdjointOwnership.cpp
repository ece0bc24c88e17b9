//===- GPU/AdjointOwnership.cpp - Ownership of a finished function --------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//

#include "GPU/AdjointOwnership.h"

#include "llvm/ADT/StringExtras.h"

using namespace meshad;
using namespace meshad::ir;

std::string meshad::renameIdentifier(const std::string &Text,
                                     const std::string &From,
                                     const std::string &To) {
  auto IsIdent = [](char C) { return llvm::isAlnum(C) || C == '_'; };
  std::string Out;
  for (size_t I = 0; I < Text.size();) {
    size_t End = I + From.size();
    if ((I == 0 || !IsIdent(Text[I - 1])) &&
        Text.compare(I, From.size(), From) == 0 &&
        (End == Text.size() || !IsIdent(Text[End]))) {
      Out += To;
      I = End;
      continue;
    }
    Out += Text[I++];
  }
  return Out;
}

bool meshad::sameOwnershipDecision(const OwnershipResult &A,
                                   const OwnershipResult &B) {
  if (A.Class != B.Class || A.LaunchDims != B.LaunchDims)
    return false;
  if (A.Class == OwnershipClass::Uniform)
    return A.HasLiteralIndex == B.HasLiteralIndex &&
           (!A.HasLiteralIndex || A.UniformIndex == B.UniformIndex);
  if (A.Class == OwnershipClass::TileExclusive)
    return A.TileStride == B.TileStride && A.TileLo == B.TileLo &&
           A.TileHi == B.TileHi;
  return true;
}

OwnershipResult meshad::classifyAdjoint(const OwnershipAnalysis &Finished,
                                        const Var *Adjoint,
                                        const OwnershipAnalysis *Primal,
                                        const Var *Param,
                                        AdjointOwnershipSource *Source) {
  AdjointOwnershipSource Ignored;
  AdjointOwnershipSource &How = Source ? *Source : Ignored;
  How = AdjointOwnershipSource::Finished;
  OwnershipResult R = Finished.classify(Adjoint);
  if (!Primal || !Param)
    return R;
  OwnershipResult P = Primal->classify(Param);
  if (!Finished.isAccumulated(Adjoint)) {
    How = AdjointOwnershipSource::NoAdds;
    return P;
  }
  if (sameOwnershipDecision(R, P)) {
    How = AdjointOwnershipSource::Agreed;
    return P;
  }
  if (R.Class == OwnershipClass::Shared &&
      Finished.recordedPrimalOf(Adjoint) == Param) {
    How = AdjointOwnershipSource::RecordedReads;
    return P;
  }
  // The finished function decides; say what the primal would have given.
  R.Reason = renameIdentifier(R.Reason, Adjoint->getName(), Param->getName()) +
             "; classified on the derivative's own accesses (the kernel's: " +
             getOwnershipName(P.Class) + ")";
  return R;
}
