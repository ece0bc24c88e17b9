//===- Transform/DerivedFunctions.cpp - Registry of generated code --------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//

#include "Transform/DerivedFunctions.h"

#include <functional>

using namespace meshad;

void DerivedFunctionSet::truncate(size_t Size) {
  while (Entries.size() > Size) {
    ir::Function *F = Entries.back().Derived;
    ByFunction.erase(F);
    for (auto It = ByKey.begin(); It != ByKey.end();)
      It = It->second == Entries.size() - 1 ? ByKey.erase(It) : std::next(It);
    Entries.pop_back();
  }
}

std::vector<ir::Function *>
DerivedFunctionSet::closure(ir::Function *Root) const {
  std::vector<ir::Function *> Order;
  std::set<ir::Function *> Seen;
  std::function<void(ir::Function *)> Visit = [&](ir::Function *F) {
    if (!Seen.insert(F).second)
      return;
    if (const DerivedFunction *D = find(F))
      for (ir::Function *C : D->Callees)
        Visit(C);
    Order.push_back(F);
  };
  Visit(Root);
  return Order;
}
