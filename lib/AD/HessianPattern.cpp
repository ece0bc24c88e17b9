//===- AD/HessianPattern.cpp - The structure of a generated Hessian -------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//

#include "AD/Hessian.h"

using namespace meshad;

HessianPatternInfo HessianPatternInfo::dense(unsigned K) {
  HessianPatternInfo P;
  P.Size = K;
  P.NumValues = K * K;
  for (unsigned E = 0; E < K * K; ++E) {
    P.Value.push_back(E);
    P.Sign.push_back(1);
  }
  return P;
}

HessianPatternInfo
HessianPatternInfo::symmetric(unsigned K, const std::set<long long> &Lower) {
  HessianPatternInfo P;
  P.Size = K;
  P.Value.assign(K * K, -1);
  P.Sign.assign(K * K, 1);
  for (long long E : Lower) { // Row-major: rows first, then columns.
    long long Row = E / K, Col = E % K;
    P.Value[E] = P.Value[Col * K + Row] = P.NumValues++;
  }
  return P;
}

std::string HessianPatternInfo::comment() const {
  std::string Text = "Hessian pattern: " + std::to_string(Size) + " x " +
                     std::to_string(Size) + ", " + std::to_string(NumValues) +
                     " unique values (v<n>: the n-th value of execute_packed; "
                     "0: a structural zero)";
  if (NumValues == Size * Size)
    return Text + "; dense";
  for (unsigned I = 0; I < Size; ++I) {
    std::string Row;
    for (unsigned J = 0; J < Size; ++J) {
      int V = Value[I * Size + J];
      std::string Cell = V < 0 ? "0"
                               : std::string(Sign[I * Size + J] < 0 ? "-" : "") +
                                     "v" + std::to_string(V);
      Row += std::string(Cell.size() < 5 ? 5 - Cell.size() : 1, ' ') + Cell;
    }
    Text += "\n" + Row;
  }
  return Text;
}
