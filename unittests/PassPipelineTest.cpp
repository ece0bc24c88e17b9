//===- unittests/PassPipelineTest.cpp - Tests of the pass pipeline --------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
//
// A pipeline runs its passes in order; with verification on, the verifier
// catches a pass that leaves the function malformed (an internal error
// naming the pass, and the later passes do not run); without it, nothing is
// checked. The GPU pass lists name their passes in order, and the passes
// of a composed derivative leave no Accumulate.
//
//===----------------------------------------------------------------------===//

#include "IR/PassPipeline.h"
#include "GPU/GpuPasses.h"
#include "IR/Builder.h"

#include "gtest/gtest.h"

using namespace meshad;
using namespace meshad::ir;

namespace {

/// A kernel `void k(double *p) { p[0] += 1.0; }` to run passes on.
class PassPipelineTest : public ::testing::Test {
protected:
  PassPipelineTest() : B(M) {
    F = M.createFunction("k", M.getTypes().getVoid(), CudaTarget::Global);
    P = M.createVar("p", M.getTypes().getPointer(M.getTypes().getDouble()),
                    Var::Storage::Param);
    F->addParam(P);
    F->setBody(B.block());
    F->getBody()->append(B.assign(B.index(B.ref(P), B.intLit(0)),
                                  AssignOp::AddAssign,
                                  B.floatLit(M.getTypes().getDouble(), 1.0)));
  }

  /// A pass that appends a statement recording \p Name into Ran.
  PassPipeline::PassFn record(std::string Name) {
    return [this, Name](Function &) { Ran.push_back(Name); };
  }

  /// A pass that stores into a local that is never declared.
  PassPipeline::PassFn breakIt() {
    return [this](Function &G) {
      Ran.push_back("broken");
      Var *Undeclared = M.createVar("t", M.getTypes().getDouble());
      G.getBody()->append(B.assign(B.ref(Undeclared), AssignOp::Assign,
                                   B.floatLit(M.getTypes().getDouble(), 2.0)));
    };
  }

  bool hasErrorWith(const std::string &Fragment) const {
    for (const Diagnostic &D : Diags.getDiagnostics())
      if (D.Severity == Diagnostic::Level::Error &&
          D.Message.find(Fragment) != std::string::npos)
        return true;
    return false;
  }

  Module M;
  IRBuilder B;
  DiagnosticSink Diags;
  Function *F;
  Var *P;
  std::vector<std::string> Ran;
};

TEST_F(PassPipelineTest, RunsPassesInOrder) {
  PassPipeline Pipeline(Diags, /*Verify=*/true);
  Pipeline.add("first", record("first"))
      .add("second", record("second"))
      .add("third", record("third"), VerifyStage::Lowered);
  EXPECT_EQ(Pipeline.getPassNames(),
            (std::vector<std::string>{"first", "second", "third"}));
  EXPECT_TRUE(Pipeline.run(*F));
  EXPECT_EQ(Ran, (std::vector<std::string>{"first", "second", "third"}));
  EXPECT_FALSE(Diags.hasErrors());
}

TEST_F(PassPipelineTest, VerifierCatchesBrokenPass) {
  PassPipeline Pipeline(Diags, /*Verify=*/true);
  Pipeline.add("first", record("first"))
      .add("broken", breakIt())
      .add("after", record("after"));
  EXPECT_FALSE(Pipeline.run(*F));
  EXPECT_EQ(Ran, (std::vector<std::string>{"first", "broken"}));
  EXPECT_EQ(Diags.getNumErrors(), 1u);
  EXPECT_TRUE(hasErrorWith("meshad internal error: generated code for 'k' is "
                           "malformed after 'broken': "));
}

TEST_F(PassPipelineTest, VerifiesAtTheStageOfEachPass) {
  // An Accumulate is fine after a transform, not once lowered.
  auto AddAccumulate = [this](Function &G) {
    const Expr *Three = B.floatLit(M.getTypes().getDouble(), 3.0);
    G.getBody()->append(B.accumulate(B.index(B.ref(P), B.intLit(0)), Three));
  };
  PassPipeline Transformed(Diags, /*Verify=*/true);
  Transformed.add("transform", AddAccumulate);
  EXPECT_TRUE(Transformed.run(*F));
  PassPipeline Lowered(Diags, /*Verify=*/true);
  Lowered.add("not-lowering", record("not-lowering"), VerifyStage::Lowered);
  EXPECT_FALSE(Lowered.run(*F));
  EXPECT_TRUE(hasErrorWith("after 'not-lowering'"));
}

TEST_F(PassPipelineTest, NoVerifierWhenOff) {
  PassPipeline Pipeline(Diags, /*Verify=*/false);
  Pipeline.add("broken", breakIt()).add("after", record("after"));
  EXPECT_TRUE(Pipeline.run(*F));
  EXPECT_EQ(Ran, (std::vector<std::string>{"broken", "after"}));
  EXPECT_FALSE(Diags.hasErrors());
}

TEST_F(PassPipelineTest, GpuPassListsInOrder) {
  PassPipeline Gradient(Diags, /*Verify=*/true);
  addGradientKernelPasses(Gradient, M, GradientKernelFacts());
  EXPECT_EQ(Gradient.getPassNames(),
            (std::vector<std::string>{"gather-tiles", "exclusive-adds"}));
  PassPipeline Composed(Diags, /*Verify=*/true);
  addLoweringPasses(Composed, M, Diags, LoweringRequest());
  EXPECT_EQ(Composed.getPassNames(),
            (std::vector<std::string>{"dead-locals", "lower-accumulations"}));
}

/// The request of a function of reverse mode, a gradient kernel with
/// \p Kernel.
static LoweringRequest reverseRequest(AccumulationFacts Facts, bool Kernel) {
  LoweringRequest R;
  R.Reverse = std::move(Facts);
  if (Kernel)
    R.Kernel.emplace();
  return R;
}

TEST_F(PassPipelineTest, ReversePassListsInOrder) {
  PassPipeline Pullback(Diags, /*Verify=*/true);
  addLoweringPasses(Pullback, M, Diags,
                    reverseRequest(AccumulationFacts(), false));
  EXPECT_EQ(Pullback.getPassNames(),
            (std::vector<std::string>{"lower-accumulations"}));
  PassPipeline Gradient(Diags, /*Verify=*/true);
  addLoweringPasses(Gradient, M, Diags,
                    reverseRequest(AccumulationFacts(), true));
  EXPECT_EQ(Gradient.getPassNames(),
            (std::vector<std::string>{"lower-accumulations", "gather-tiles",
                                      "exclusive-adds"}));
}

TEST_F(PassPipelineTest, ReversePassesLowerEveryAccumulate) {
  F->getBody()->append(B.accumulate(B.index(B.ref(P), B.intLit(0)),
                                    B.floatLit(M.getTypes().getDouble(), 3.0)));
  AccumulationFacts Facts;
  Facts.Target = F->getTarget();
  PassPipeline Reverse(Diags, /*Verify=*/true);
  addLoweringPasses(Reverse, M, Diags, reverseRequest(std::move(Facts), false));
  EXPECT_TRUE(Reverse.run(*F));
  EXPECT_FALSE(Diags.hasErrors());
}

TEST_F(PassPipelineTest, ComposedPassesLowerEveryAccumulate) {
  F->getBody()->append(B.accumulate(B.index(B.ref(P), B.intLit(0)),
                                    B.floatLit(M.getTypes().getDouble(), 3.0)));
  PassPipeline Composed(Diags, /*Verify=*/true);
  LoweringRequest Request;
  Request.ForceAtomics = true;
  addLoweringPasses(Composed, M, Diags, std::move(Request));
  EXPECT_TRUE(Composed.run(*F));
  EXPECT_FALSE(Diags.hasErrors());
}

} // namespace
