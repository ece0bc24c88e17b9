//===- Support/ArgSpec.h - Parsing "x, p[2], q[0:8]" -------------*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The argument-spec strings of meshad::differentiate/gradient/hessian name
/// the independent variables: a comma-separated list of parameter names or
/// 0-based parameter numbers, each optionally with one element "[3]" or a
/// half-open range "[0:8]". An empty spec means every differentiable
/// parameter.
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_SUPPORT_ARGSPEC_H
#define MESHAD_SUPPORT_ARGSPEC_H

#include <optional>
#include <string>
#include <vector>

namespace meshad {

/// One item of an argument spec.
struct ArgSpecItem {
  std::string Name;     ///< Parameter name, empty when given by number.
  int Number = -1;      ///< Parameter number when given by number.
  bool HasRange = false;
  unsigned Begin = 0;   ///< First element (when HasRange).
  unsigned End = 0;     ///< One past the last element; Begin+1 for "[k]".
  bool isElement() const { return HasRange && End == Begin + 1; }
};

/// Parses \p Spec. Returns std::nullopt and sets \p Error on bad input.
std::optional<std::vector<ArgSpecItem>> parseArgSpec(const std::string &Spec,
                                                     std::string &Error);

} // namespace meshad

#endif // MESHAD_SUPPORT_ARGSPEC_H
