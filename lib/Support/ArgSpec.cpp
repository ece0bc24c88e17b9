//===- Support/ArgSpec.cpp - Parsing "x, p[2], q[0:8]" --------------------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//

#include "Support/ArgSpec.h"

#include <cctype>

using namespace meshad;

namespace {
/// A cursor over the spec text.
class SpecLexer {
public:
  explicit SpecLexer(const std::string &S) : S(S) {}
  void skipSpace() {
    while (Pos < S.size() && std::isspace(static_cast<unsigned char>(S[Pos])))
      ++Pos;
  }
  bool atEnd() {
    skipSpace();
    return Pos >= S.size();
  }
  bool consume(char C) {
    skipSpace();
    if (Pos < S.size() && S[Pos] == C) {
      ++Pos;
      return true;
    }
    return false;
  }
  std::optional<unsigned> number() {
    skipSpace();
    if (Pos >= S.size() || !std::isdigit(static_cast<unsigned char>(S[Pos])))
      return std::nullopt;
    unsigned long long V = 0;
    while (Pos < S.size() && std::isdigit(static_cast<unsigned char>(S[Pos]))) {
      V = V * 10 + (S[Pos++] - '0');
      if (V > 1u << 30)
        return std::nullopt;
    }
    return static_cast<unsigned>(V);
  }
  std::string identifier() {
    skipSpace();
    size_t Start = Pos;
    if (Pos < S.size() &&
        (std::isalpha(static_cast<unsigned char>(S[Pos])) || S[Pos] == '_')) {
      while (Pos < S.size() &&
             (std::isalnum(static_cast<unsigned char>(S[Pos])) || S[Pos] == '_'))
        ++Pos;
    }
    return S.substr(Start, Pos - Start);
  }
  size_t position() const { return Pos; }

private:
  const std::string &S;
  size_t Pos = 0;
};
} // namespace

static bool parseRange(SpecLexer &L, ArgSpecItem &Item, std::string &Error) {
  std::optional<unsigned> Begin = L.number();
  if (!Begin) {
    Error = "expected an element index after '['";
    return false;
  }
  Item.HasRange = true;
  Item.Begin = *Begin;
  Item.End = *Begin + 1;
  if (L.consume(':')) {
    std::optional<unsigned> End = L.number();
    if (!End) {
      Error = "expected the end of the range after ':'";
      return false;
    }
    if (*End <= *Begin) {
      Error = "empty range [" + std::to_string(*Begin) + ":" +
              std::to_string(*End) + "]";
      return false;
    }
    Item.End = *End;
  }
  if (!L.consume(']')) {
    Error = "expected ']'";
    return false;
  }
  return true;
}

std::optional<std::vector<ArgSpecItem>>
meshad::parseArgSpec(const std::string &Spec, std::string &Error) {
  std::vector<ArgSpecItem> Items;
  SpecLexer L(Spec);
  if (L.atEnd())
    return Items;
  do {
    ArgSpecItem Item;
    if (std::optional<unsigned> N = L.number()) {
      Item.Number = static_cast<int>(*N);
    } else {
      Item.Name = L.identifier();
      if (Item.Name.empty()) {
        Error = "expected a parameter name or number at offset " +
                std::to_string(L.position());
        return std::nullopt;
      }
    }
    if (L.consume('[') && !parseRange(L, Item, Error))
      return std::nullopt;
    for (const ArgSpecItem &Prev : Items)
      if (Prev.Name == Item.Name && Prev.Number == Item.Number) {
        Error = "parameter '" +
                (Item.Name.empty() ? std::to_string(Item.Number) : Item.Name) +
                "' is named twice";
        return std::nullopt;
      }
    Items.push_back(Item);
  } while (L.consume(','));
  if (!L.atEnd()) {
    Error = "unexpected text at offset " + std::to_string(L.position());
    return std::nullopt;
  }
  return Items;
}
