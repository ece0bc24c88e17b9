//===- Analysis/IndexGathers.cpp - Loads from index arrays as atoms -------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The part of IndexEvaluator that evaluates loads and casts: a load from
/// an index array that the kernel never writes (setGatherArrays) is a
/// Gathered atom keyed by the array and the affine form of its position, so
/// that two loads of the same position are the same value; any other load
/// is not affine. A cast of a loaded value to a narrower integer type is
/// not affine either (it may wrap).
///
//===----------------------------------------------------------------------===//

#include "AD/Analysis/Activity.h"
#include "Analysis/IRWalk.h"
#include "Analysis/IndexForms.h"

using namespace meshad;
using namespace meshad::ir;
using namespace meshad::ownership;

Eval IndexEvaluator::evalIndex(const IndexExpr *I) {
  const Var *Root = ActivityAnalysis::getRootVar(I);
  const auto *Base = llvm::dyn_cast<VarRefExpr>(I->getBase());
  if (!Base || !GatherArrays.count(Base->getVar()) ||
      !I->getType()->isIntegral())
    return Eval::fail("gather through an index array" +
                          (Root ? " " + Root->getName() : std::string()),
                      I);
  Eval Position = eval(I->getIndex());
  if (!Position.Ok)
    return Position;
  foldGid(Position.Form);
  // The value is the same wherever the position is: its symbols must not
  // change while a variable holds the loaded value.
  if (!isStable(Position.Form))
    return Eval::fail(irwalk::spell(I) + ": the position " +
                          spell(Position.Form) +
                          " depends on a variable assigned more than once",
                      I);
  for (unsigned Id = 0; Id < Gathers.size(); ++Id)
    if (Gathers[Id].Array == Base->getVar() &&
        Gathers[Id].Position == Position.Form)
      return Eval::ok(Affine::atom(Atom{AtomKind::Gathered, 0, Id}));
  Gathers.push_back(
      GatherInfo{Base->getVar(), Position.Form, irwalk::spell(I), false});
  return Eval::ok(Affine::atom(
      Atom{AtomKind::Gathered, 0, static_cast<unsigned>(Gathers.size() - 1)}));
}

Eval IndexEvaluator::evalCast(const CastExpr *C) {
  Eval Sub = eval(C->getSub());
  if (!Sub.Ok || !isNarrowInteger(C->getType()))
    return Sub;
  for (const auto &Term : Sub.Form.Terms)
    if (std::optional<Atom> T = threadAtomOf(Term.first);
        T && T->Kind == AtomKind::Gathered)
      return Eval::fail(irwalk::spell(C) + " may wrap the loaded value", C);
  return Sub;
}

void IndexEvaluator::nameGather(const Var *V, const Affine &Form) {
  if (!Form.isAtom(AtomKind::Gathered))
    return;
  GatherInfo &G = Gathers[Form.Terms.begin()->first.front().Id];
  if (!G.NamedByLocal) {
    G.Name = V->getName();
    G.NamedByLocal = true;
  }
}
