//===- unittests/ElementMapsTest.cpp - Tests of the element maps ----------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The element -> DOF maps of mesh kernels (Analysis/ElementMaps.h): the
/// maps recognised (springs, triangles, tets, locals, loops over the local
/// vertex and the component, several index arrays, grid-stride loops), the
/// reasons of those that are not, the element work, and the ownership
/// remark's text.
///
//===----------------------------------------------------------------------===//

#include "Analysis/ElementMaps.h"
#include "Driver/ElementCostModel.h"
#include "OwnershipFixture.h"

#include <algorithm>
#include <set>
#include <vector>

namespace {

using Slots = std::set<std::pair<long long, long long>>;

/// Runs the element map analysis on the kernel `k` of each snippet.
class ElementMapsTest : public OwnershipTest {
protected:
  bool analyseMaps(llvm::StringRef Code) {
    if (!analyse(Code))
      return false;
    Maps = std::make_unique<ElementMapAnalysis>(*Kernel);
    return true;
  }
  const Var *param(llvm::StringRef Name) const {
    for (const Var *P : Kernel->getParams())
      if (P->getName() == Name)
        return P;
    ADD_FAILURE() << "no parameter " << Name.str();
    return nullptr;
  }
  const ElementMapResult &map(llvm::StringRef Name) const {
    return Maps->lookup(param(Name));
  }
  /// Expects \p Name to be read through one map: index array \p Index,
  /// arity \p Arity, stride \p Stride, slots \p Expected.
  void expectMap(llvm::StringRef Name, llvm::StringRef Index, long long Arity,
                 long long Stride, const Slots &Expected) const {
    const ElementMapResult &R = map(Name);
    ASSERT_TRUE(R.IsMap) << Name.str() << ": " << R.Reason;
    EXPECT_EQ(R.Stride, Stride) << Name.str();
    EXPECT_EQ(R.LaunchDims, 1u) << Name.str();
    const ElementMap *M = nullptr;
    for (const ElementMap &Each : R.Maps)
      if (Each.IndexArray->getName() == Index)
        M = &Each;
    ASSERT_NE(M, nullptr) << Name.str() << ": no map through " << Index.str();
    EXPECT_EQ(M->Arity, Arity) << Name.str();
    EXPECT_EQ(M->Slots, Expected) << Name.str();
  }
  /// Expects no map for \p Name, with every word of \p Words in the reason.
  void expectNone(llvm::StringRef Name,
                  std::initializer_list<const char *> Words) const {
    const ElementMapResult &R = map(Name);
    EXPECT_FALSE(R.IsMap) << Name.str() << ": " << R.describe();
    for (const char *W : Words)
      EXPECT_NE(R.Reason.find(W), std::string::npos)
          << Name.str() << ": '" << R.Reason << "' lacks '" << W << "'";
  }

  std::unique_ptr<ElementMapAnalysis> Maps;
};

/// All (j, k) with j < J and k < K.
Slots grid(long long J, long long K) {
  Slots S;
  for (long long A = 0; A < J; ++A)
    for (long long B = 0; B < K; ++B)
      S.insert({A, B});
  return S;
}

//===----------------------------------------------------------------------===//
// Maps
//===----------------------------------------------------------------------===//

TEST_F(ElementMapsTest, SpringsThroughLocals) {
  ASSERT_TRUE(analyseMaps(
      "__global__ void k(int n, const int *edges, const double *rest,\n"
      "                  const double *x, double *E) {\n"
      "  int e = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  if (e < n) {\n"
      "    int a = edges[2 * e], b = edges[2 * e + 1];\n"
      "    double dx = x[2 * a] - x[2 * b];\n"
      "    double dy = x[2 * a + 1] - x[2 * b + 1];\n"
      "    double s = sqrt(dx * dx + dy * dy) - rest[e];\n"
      "    atomicAdd(&E[0], 0.5 * s * s);\n"
      "  }\n"
      "}\n"));
  expectMap("x", "edges", 2, 2, grid(2, 2));
  EXPECT_EQ(map("x").ElementId, "e");
  EXPECT_FALSE(map("x").GridStride);
  EXPECT_EQ(map("x").describe(), "element map through edges (arity 2, "
                                 "stride 2)");
  EXPECT_EQ(Maps->remark(param("x")),
            "x: element map through edges (arity 2, stride 2), n elements "
            "(guard), element work small (8 operations, 1 math call): "
            "atomic-free strategies possible");
  expectNone("rest", {"rest[e] is not read through an index array"});
  expectNone("E", {"E is written by the kernel", "atomicAdd"});
  expectNone("edges", {"edges[2 * e] is not read through an index array"});
  EXPECT_TRUE(Maps->getWork().isSmall());
  EXPECT_EQ(Maps->getWork().Operations, 8u);
  EXPECT_EQ(Maps->getWork().MathCalls, 1u);
}

TEST_F(ElementMapsTest, SpringsInline3DWithComponentLoop) {
  ASSERT_TRUE(analyseMaps(
      "__global__ void k(int n, const int *edges, const double *x,\n"
      "                  double *E) {\n"
      "  int e = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  if (e >= n) return;\n"
      "  double l = 0;\n"
      "  for (int k = 0; k < 3; ++k) {\n"
      "    double d = x[3 * edges[2 * e] + k] - x[3 * edges[2 * e + 1] + k];\n"
      "    l += d * d;\n"
      "  }\n"
      "  atomicAdd(E, l);\n"
      "}\n"));
  expectMap("x", "edges", 2, 3, grid(2, 3));
  // 3 * (one subtraction, one product, one +=).
  EXPECT_EQ(Maps->getWork().Operations, 9u);
}

TEST_F(ElementMapsTest, TrianglesWithVertexLoop) {
  ASSERT_TRUE(
      analyseMaps("__global__ void k(int nf, const int *tris, const float *x,\n"
                  "                  float *E) {\n"
                  "  int f = blockIdx.x * blockDim.x + threadIdx.x;\n"
                  "  if (f < nf) {\n"
                  "    float s = 0.f;\n"
                  "    for (int j = 0; j < 3; ++j) {\n"
                  "      int v = tris[3 * f + j];\n"
                  "      s += x[3 * v] * x[3 * v + 1] + x[3 * v + 2];\n"
                  "    }\n"
                  "    atomicAdd(E, s);\n"
                  "  }\n"
                  "}\n"));
  expectMap("x", "tris", 3, 3, grid(3, 3));
}

TEST_F(ElementMapsTest, TetsWithBothLoopsAndUnusedSlots) {
  ASSERT_TRUE(analyseMaps(
      "__global__ void k(int nt, const int *tets, const double *x,\n"
      "                  double *E) {\n"
      "  int t = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  if (t >= nt) return;\n"
      "  double s = 0;\n"
      "  for (int j = 1; j < 4; ++j)\n"
      "    for (int k = 0; k < 2; ++k)\n"
      "      s += x[3 * tets[4 * t + j] + k] - x[3 * tets[4 * t] + k];\n"
      "  atomicAdd(E, s * s);\n"
      "}\n"));
  // Component 2 is never read; vertex 0 only through the second load.
  expectMap("x", "tets", 4, 3, grid(4, 2));
}

TEST_F(ElementMapsTest, CorrelatedCountersGiveOnlyTheirSlots) {
  ASSERT_TRUE(analyseMaps(
      "__global__ void k(const int *tris, const double *x, double *E) {\n"
      "  int f = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  double s = 0;\n"
      "  for (int j = 0; j < 3; ++j) s += x[3 * tris[3 * f + j] + j];\n"
      "  atomicAdd(E, s);\n"
      "}\n"));
  expectMap("x", "tris", 3, 3, Slots{{0, 0}, {1, 1}, {2, 2}});
}

TEST_F(ElementMapsTest, TwoIndexArraysAndSharedMaps) {
  // Springs and hinges (4 vertices) of one cloth; x and v share the maps.
  ASSERT_TRUE(analyseMaps(
      "__global__ void k(const int *edges, const int *hinges,\n"
      "                  const int *faces, const double *x, const double *v,\n"
      "                  const double *w, double *E) {\n"
      "  int e = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  int a = edges[2 * e], b = edges[2 * e + 1];\n"
      "  int c = hinges[4 * e + 2], d = hinges[4 * e + 3];\n"
      "  double s = x[a] * v[a] - x[b] * v[b] + x[c] * v[d];\n"
      "  s += w[faces[3 * e + 1]];\n"
      "  atomicAdd(E, s);\n"
      "}\n"));
  for (const char *Name : {"x", "v"}) {
    const ElementMapResult &R = map(Name);
    ASSERT_TRUE(R.IsMap) << R.Reason;
    ASSERT_EQ(R.Maps.size(), 2u) << Name;
    EXPECT_EQ(R.Maps[0].IndexArray->getName(), "edges");
    EXPECT_EQ(R.Maps[1].IndexArray->getName(), "hinges");
  }
  expectMap("x", "edges", 2, 1, grid(2, 1));
  expectMap("x", "hinges", 4, 1, Slots{{2, 0}});
  expectMap("v", "hinges", 4, 1, Slots{{3, 0}});
  expectMap("w", "faces", 3, 1, Slots{{1, 0}});
  EXPECT_EQ(map("x").describe(),
            "element maps through edges (arity 2) and hinges (arity 4), "
            "stride 1");
}

TEST_F(ElementMapsTest, GridStrideLoop) {
  ASSERT_TRUE(analyseMaps(
      "__global__ void k(int n, const int *edges, const double *x,\n"
      "                  double *E) {\n"
      "  for (int e = blockIdx.x * blockDim.x + threadIdx.x; e < n;\n"
      "       e += blockDim.x * gridDim.x) {\n"
      "    int a = edges[2 * e];\n"
      "    int b = edges[2 * e + 1];\n"
      "    atomicAdd(E, x[a] * x[b]);\n"
      "  }\n"
      "}\n"));
  expectMap("x", "edges", 2, 1, grid(2, 1));
  EXPECT_TRUE(map("x").GridStride);
  EXPECT_EQ(map("x").ElementId, "e");
  // The grid-stride loop's body counts once: one product.
  EXPECT_EQ(Maps->getWork().Operations, 1u);
  EXPECT_TRUE(Maps->getWork().Bounded);
}

/// Expects \p Name's map to have the element count \p N found in \p How.
#define EXPECT_COUNT(Name, N, How)                                             \
  do {                                                                         \
    const ElementMapResult &R = map(Name);                                     \
    ASSERT_TRUE(R.IsMap) << R.Reason;                                          \
    EXPECT_EQ(R.Count.describe(),                                              \
              std::string(N) + " elements (" + (How) + ")");                   \
  } while (0)

TEST_F(ElementMapsTest, ElementCountFromGuardsAndLoops) {
  ASSERT_TRUE(analyseMaps(
      "__global__ void k(int n, int m, const int *edges, const double *x,\n"
      "                  double *E) {\n"
      "  int e = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  if (e >= 2 * n + m) return;\n"
      "  atomicAdd(E, x[edges[2 * e]] * x[edges[2 * e + 1]]);\n"
      "}\n"));
  EXPECT_COUNT("x", "2 * n + m", "early return");
  ASSERT_TRUE(analyseMaps(
      "__global__ void k(int n, const int *edges, const double *x,\n"
      "                  double *E, bool on) {\n"
      "  int e = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  if (on && n > e)\n"
      "    atomicAdd(E, x[edges[2 * e]] * x[edges[2 * e + 1]]);\n"
      "}\n"));
  EXPECT_COUNT("x", "n", "guard");
  ASSERT_TRUE(analyseMaps(
      "__global__ void k(int n, const int *edges, const double *x,\n"
      "                  double *E) {\n"
      "  for (int e = blockIdx.x * blockDim.x + threadIdx.x; e < n;\n"
      "       e += blockDim.x * gridDim.x)\n"
      "    atomicAdd(E, x[edges[2 * e]] * x[edges[2 * e + 1]]);\n"
      "}\n"));
  EXPECT_COUNT("x", "n", "grid-stride loop");
}

TEST_F(ElementMapsTest, ElementCountPerIndexArray) {
  // Two element kinds in one launch, each under its own guard: no count
  // for x as a whole, one per map; w has the springs' count.
  ASSERT_TRUE(analyseMaps(
      "__global__ void k(int ne, int nf, const int *edges, const int *tris,\n"
      "                  const double *x, const double *w, double *E) {\n"
      "  int t = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  if (t < ne)\n"
      "    atomicAdd(E, w[edges[2 * t]] * x[edges[2 * t + 1]]);\n"
      "  if (t < nf)\n"
      "    atomicAdd(E, x[tris[3 * t]] * x[tris[3 * t + 2]]);\n"
      "}\n"));
  const ElementMapResult &X = map("x");
  ASSERT_TRUE(X.IsMap) << X.Reason;
  EXPECT_EQ(X.Count.Count, nullptr);
  ASSERT_EQ(X.Maps.size(), 2u);
  EXPECT_EQ(X.Maps[0].Count.describe(), "ne elements (guard)");
  EXPECT_EQ(X.Maps[1].Count.describe(), "nf elements (guard)");
  EXPECT_TRUE(X.counted());
  EXPECT_EQ(X.describeCount(),
            "edges: ne elements (guard), tris: nf elements (guard)");
  EXPECT_COUNT("w", "ne", "guard");
  EXPECT_TRUE(map("w").counted());
}

TEST_F(ElementMapsTest, NoElementCount) {
  // No guard: the launch's thread count is the element count, which the
  // host does not know.
  ASSERT_TRUE(analyseMaps(
      "__global__ void k(const int *edges, const double *x, double *E) {\n"
      "  int e = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  atomicAdd(E, x[edges[2 * e]] * x[edges[2 * e + 1]]);\n"
      "}\n"));
  EXPECT_EQ(map("x").Count.Count, nullptr);
  EXPECT_EQ(map("x").Count.Reason, "no guard t < n bounds the element id");
  EXPECT_EQ(Maps->remark(param("x")),
            "x: element map through edges (arity 2, stride 1), no element "
            "count: no guard t < n bounds the element id: no atomic-free "
            "strategy");
  // The bound is read from memory.
  ASSERT_TRUE(analyseMaps(
      "__global__ void k(const int *count, const int *edges, const double "
      "*x,\n"
      "                  double *E) {\n"
      "  int e = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  if (e < count[0])\n"
      "    atomicAdd(E, x[edges[2 * e]] * x[edges[2 * e + 1]]);\n"
      "}\n"));
  EXPECT_EQ(map("x").Count.Count, nullptr);
  EXPECT_NE(map("x").Count.Reason.find("count[0]"), std::string::npos)
      << map("x").Count.Reason;
  // One access outside the guard.
  ASSERT_TRUE(analyseMaps(
      "__global__ void k(int n, const int *edges, const double *x,\n"
      "                  double *E) {\n"
      "  int e = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  if (e < n) atomicAdd(E, x[edges[2 * e]]);\n"
      "  atomicAdd(E, x[edges[2 * e + 1]]);\n"
      "}\n"));
  EXPECT_EQ(map("x").Count.Count, nullptr);
  EXPECT_EQ(map("x").Count.Reason,
            "x[edges[2 * e + 1]] may run for an element id >= n");
  // A grid-stride counter moved in the body.
  ASSERT_TRUE(analyseMaps(
      "__global__ void k(int n, const int *edges, const double *x,\n"
      "                  double *E) {\n"
      "  for (int e = blockIdx.x * blockDim.x + threadIdx.x; e < n;\n"
      "       e += blockDim.x * gridDim.x) {\n"
      "    atomicAdd(E, x[edges[2 * e]] * x[edges[2 * e + 1]]);\n"
      "    e += blockDim.x * gridDim.x;\n"
      "  }\n"
      "}\n"));
  if (map("x").IsMap)
    EXPECT_EQ(map("x").Count.Count, nullptr);
}

TEST_F(ElementMapsTest, PermutationIsAMapOfArityOne) {
  ASSERT_TRUE(analyseMaps(
      "__global__ void k(const int *perm, const float *x, float *y) {\n"
      "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  y[i] = x[perm[i]];\n"
      "}\n"));
  expectMap("x", "perm", 1, 1, grid(1, 1));
  expectNone("y", {"y is written by the kernel: y[i] is assigned"});
}

TEST_F(ElementMapsTest, BenchmarkEnergiesAndTheirWork) {
  // The element kernels of benchmarks/elements (issue 11), where on an H100
  // the hand-written gather beat the two-phase slots for springs (cost 19
  // here) and symmetric Dirichlet triangles (47), and lost for neo-Hookean
  // tets (100). restInv + 4 * t escapes: restInv has no map, x does.
  ASSERT_TRUE(analyseMaps(
      "__global__ void k(int nTris, const int *tris, const double *restInv,\n"
      "                  const double *area, const double *x, double *E) {\n"
      "  int t = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  if (t < nTris) {\n"
      "    int a = tris[3 * t], b = tris[3 * t + 1], c = tris[3 * t + 2];\n"
      "    const double *m = restInv + 4 * t;\n"
      "    double e1x = x[3 * b] - x[3 * a], e2x = x[3 * c] - x[3 * a];\n"
      "    double e1y = x[3 * b + 1] - x[3 * a + 1],\n"
      "           e2y = x[3 * c + 1] - x[3 * a + 1];\n"
      "    double e1z = x[3 * b + 2] - x[3 * a + 2],\n"
      "           e2z = x[3 * c + 2] - x[3 * a + 2];\n"
      "    double j0x = e1x * m[0] + e2x * m[2], j1x = e1x * m[1] + e2x * "
      "m[3];\n"
      "    double j0y = e1y * m[0] + e2y * m[2], j1y = e1y * m[1] + e2y * "
      "m[3];\n"
      "    double j0z = e1z * m[0] + e2z * m[2], j1z = e1z * m[1] + e2z * "
      "m[3];\n"
      "    double g00 = j0x * j0x + j0y * j0y + j0z * j0z;\n"
      "    double g01 = j0x * j1x + j0y * j1y + j0z * j1z;\n"
      "    double g11 = j1x * j1x + j1y * j1y + j1z * j1z;\n"
      "    double tr = g00 + g11;\n"
      "    double det = g00 * g11 - g01 * g01;\n"
      "    atomicAdd(&E[0], area[t] * tr * (1.0 + 1.0 / det));\n"
      "  }\n"
      "}\n"));
  expectMap("x", "tris", 3, 3, grid(3, 3));
  expectNone("restInv", {"restInv + 4 * t"});
  EXPECT_EQ(Maps->getWork().cost(), 47u);
  EXPECT_TRUE(Maps->getWork().isSmall());
  // The cost model (Driver/ElementCostModel.h): 3 * 3/2 * 47 for the
  // gather, 47 + 28 * 9 for the slots: gather, as on the H100 since
  // session 7 (ElementCostModelTest below).
  ElementCost C = estimateElementCost(Maps->getWork(), 3, 3);
  EXPECT_EQ(C.GatherCost, 212u);
  EXPECT_EQ(C.TwoPhaseCost, 299u);
  EXPECT_EQ(C.Choice, ElementCost::Gather);
}

TEST_F(ElementMapsTest, NeoHookeanTetsAreLarge) {
  ASSERT_TRUE(analyseMaps(
      "__global__ void k(int nTets, const int *tets, const double *m,\n"
      "                  const double *x, double *E) {\n"
      "  int t = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  if (t < nTets) {\n"
      "    int i0 = tets[4 * t], i1 = tets[4 * t + 1];\n"
      "    int i2 = tets[4 * t + 2], i3 = tets[4 * t + 3];\n"
      "    double d[9], f[9], norm2 = 0;\n"
      "    for (int k = 0; k < 3; ++k) {\n"
      "      d[k] = x[3 * i1 + k] - x[3 * i0 + k];\n"
      "      d[3 + k] = x[3 * i2 + k] - x[3 * i0 + k];\n"
      "      d[6 + k] = x[3 * i3 + k] - x[3 * i0 + k];\n"
      "    }\n"
      "    for (int r = 0; r < 3; ++r)\n"
      "      for (int c = 0; c < 3; ++c) {\n"
      "        f[3 * r + c] = d[r] * m[9 * t + c] + d[3 + r] * m[9 * t + 3 + c]"
      " +\n"
      "                       d[6 + r] * m[9 * t + 6 + c];\n"
      "        norm2 += f[3 * r + c] * f[3 * r + c];\n"
      "      }\n"
      "    double J = f[0] * (f[4] * f[8] - f[5] * f[7]) -\n"
      "               f[1] * (f[3] * f[8] - f[5] * f[6]) +\n"
      "               f[2] * (f[3] * f[7] - f[4] * f[6]);\n"
      "    double logJ = log(J);\n"
      "    atomicAdd(&E[0], 0.5 * (norm2 - 3.0) - logJ + 0.5 * logJ * logJ);\n"
      "  }\n"
      "}\n"));
  expectMap("x", "tets", 4, 3, grid(4, 3));
  // 9 differences, 9 * (5 + 2) for F and its norm, 14 for J, 6 at the end.
  EXPECT_EQ(Maps->getWork().Operations, 92u);
  EXPECT_EQ(Maps->getWork().MathCalls, 1u);
  EXPECT_EQ(Maps->getWork().cost(), 100u);
  EXPECT_FALSE(Maps->getWork().isSmall());
  // 4 * 3/2 * 100 for the gather, 100 + 28 * 12 for the slots: two-phase,
  // as on the H100; the atomics' 100 + 12 * 12 named in the remark.
  ElementCost C = estimateElementCost(Maps->getWork(), 4, 3);
  EXPECT_EQ(C.GatherCost, 600u);
  EXPECT_EQ(C.TwoPhaseCost, 436u);
  EXPECT_EQ(C.Choice, ElementCost::TwoPhase);
  EXPECT_EQ(C.describe(),
            "element work large (92 operations, 1 math call): estimated "
            "two-phase 436 < gather 600 operations per element (atomics "
            "244, not bitwise reproducible: ElementStrategy::Fastest or "
            "Atomics)");
}

TEST_F(ElementMapsTest, CostModelOfSpringsAndUnboundedWork) {
  ElementWork Spring;
  Spring.Operations = 11;
  Spring.MathCalls = 1; // 19, the benchmark's 3D spring
  ElementCost C = estimateElementCost(Spring, 2, 3);
  EXPECT_EQ(C.GatherCost, 57u);
  EXPECT_EQ(C.TwoPhaseCost, 187u);
  EXPECT_EQ(C.Choice, ElementCost::Gather);
  // A loop without a literal trip count: never recomputed per vertex.
  Spring.Bounded = false;
  EXPECT_EQ(estimateElementCost(Spring, 2, 3).Choice, ElementCost::TwoPhase);
  // Atomics allowed (ElementStrategy::Fastest): the slots' estimate and
  // the atomics' differ by the same work, so the atomics.
  C = estimateElementCost(Spring, 2, 3, /*AllowAtomics=*/true);
  EXPECT_EQ(C.Choice, ElementCost::Atomics);
  EXPECT_EQ(C.describe(), "element work large (11 operations, 1 math call, a "
                          "loop without a literal trip count): recomputing it per vertex could cost "
                          "any amount; estimated atomics 91 < two-phase 187 "
                          "operations per element");
}

//===----------------------------------------------------------------------===//
// The cost model against the H100 measurements
//===----------------------------------------------------------------------===//

/// The order of the strategies by the model's estimates, cheapest first.
static std::vector<ElementCost::Strategy> byEstimate(const ElementCost &C) {
  std::vector<ElementCost::Strategy> Order = {
      ElementCost::Gather, ElementCost::TwoPhase, ElementCost::Atomics};
  std::sort(Order.begin(), Order.end(), [&](auto A, auto B) {
    return C.cost(A) < C.cost(B);
  });
  return Order;
}

/// One element of work \p Cost (operations, no math calls).
static ElementWork workOf(unsigned long long Cost) {
  ElementWork W;
  W.Operations = Cost;
  return W;
}

// benchmarks/elements on an H100 (fp64, V = 1M, after session 7's gather:
// benchmarks/results/2026-11-25-session7-h100.md; docs/element-kernels.md,
// step 7): 3D springs (work 19, arity 2, stride 3) gather 0.068 ms,
// atomics 0.181, two-phase 0.270.
TEST(ElementCostModelTest, SpringsAsMeasured) {
  ElementCost C = estimateElementCost(workOf(19), 2, 3);
  EXPECT_EQ(byEstimate(C),
            (std::vector<ElementCost::Strategy>{ElementCost::Gather,
                                                ElementCost::Atomics,
                                                ElementCost::TwoPhase}));
  EXPECT_EQ(C.Choice, ElementCost::Gather);
  EXPECT_EQ(estimateElementCost(workOf(19), 2, 3, true).Choice,
            ElementCost::Gather);
  EXPECT_EQ(C.describe(), "element work small (19 operations, 0 math "
                          "calls): estimated gather 57 < two-phase 187 "
                          "operations per element");
}

// Symmetric Dirichlet triangles (work 47, arity 3, stride 3): atomics 0.164
// ms, gather 0.214, two-phase 0.265 (session 5, before the gather kept its
// local gradient in registers: atomics 0.163, two-phase 0.315, gather
// 0.391, and Auto took two-phase).
TEST(ElementCostModelTest, DirichletTrianglesAsMeasured) {
  ElementCost C = estimateElementCost(workOf(47), 3, 3);
  EXPECT_EQ(byEstimate(C),
            (std::vector<ElementCost::Strategy>{ElementCost::Atomics,
                                                ElementCost::Gather,
                                                ElementCost::TwoPhase}));
  EXPECT_EQ(C.Choice, ElementCost::Gather);
  ElementCost Fastest = estimateElementCost(workOf(47), 3, 3, true);
  EXPECT_EQ(Fastest.Choice, ElementCost::Atomics);
  EXPECT_EQ(Fastest.describe(),
            "element work small (47 operations, 0 math calls): estimated "
            "atomics 155 < gather 212 < two-phase 299 operations per "
            "element");
}

// Neo-Hookean tets (work 100, arity 4, stride 3): atomics 0.239 ms,
// two-phase 0.455, gather 0.570.
TEST(ElementCostModelTest, NeoHookeanTetsAsMeasured) {
  ElementCost C = estimateElementCost(workOf(100), 4, 3);
  EXPECT_EQ(byEstimate(C),
            (std::vector<ElementCost::Strategy>{ElementCost::Atomics,
                                                ElementCost::TwoPhase,
                                                ElementCost::Gather}));
  EXPECT_EQ(C.Choice, ElementCost::TwoPhase);
  EXPECT_EQ(estimateElementCost(workOf(100), 4, 3, true).Choice,
            ElementCost::Atomics);
}

// Several maps (positions and velocities through one index array; cloth
// springs and triangles): every map's local DOFs in the slots' and the
// atomics' estimates, the gather run by the largest arity; one map: as
// before.
TEST(ElementCostModelTest, EveryMapSeen) {
  ElementCost One = estimateElementCost(workOf(20), {{2, 3}});
  EXPECT_EQ(One.GatherCost, estimateElementCost(workOf(20), 2, 3).GatherCost);
  EXPECT_EQ(One.TwoPhaseCost, 188u);
  ElementCost Two = estimateElementCost(workOf(20), {{2, 3}, {2, 3}}, true);
  EXPECT_EQ(Two.GatherCost, 60u);
  EXPECT_EQ(Two.TwoPhaseCost, 20u + 28u * 12u);
  EXPECT_EQ(Two.AtomicsCost, 20u + 12u * 12u);
  ElementCost Cloth =
      estimateElementCost(workOf(40), {{2, 1}, {2, 3}, {3, 3}}, true);
  EXPECT_EQ(Cloth.GatherCost, 180u); // 3 * 3/2 * 40
  EXPECT_EQ(Cloth.TwoPhaseCost, 40u + 28u * 17u);
  EXPECT_EQ(Cloth.AtomicsCost, 40u + 12u * 17u);
  EXPECT_EQ(Cloth.Choice, ElementCost::Gather);
}

//===----------------------------------------------------------------------===//
// Not maps
//===----------------------------------------------------------------------===//

TEST_F(ElementMapsTest, IndexArrayWrittenByTheKernel) {
  ASSERT_TRUE(
      analyseMaps("__global__ void k(int *idx, const double *x, double *E) {\n"
                  "  int t = blockIdx.x * blockDim.x + threadIdx.x;\n"
                  "  int a = idx[2 * t];\n"
                  "  idx[2 * t + 1] = a;\n"
                  "  atomicAdd(E, x[a]);\n"
                  "}\n"));
  expectNone("x", {"x[a]: gather through an index array idx",
                   "idx is written by the kernel: idx[2 * t + 1] is "
                   "assigned"});
}

TEST_F(ElementMapsTest, IndexArrayWrittenByAnAtomic) {
  ASSERT_TRUE(
      analyseMaps("__global__ void k(int *idx, const double *x, double *E) {\n"
                  "  int t = blockIdx.x * blockDim.x + threadIdx.x;\n"
                  "  atomicAdd(E, x[idx[t]]);\n"
                  "  atomicAdd(&idx[t], 1);\n"
                  "}\n"));
  expectNone("x", {"idx is written by the kernel: atomicAdd writes"});
}

TEST_F(ElementMapsTest, NonLiteralStride) {
  ASSERT_TRUE(analyseMaps(
      "__global__ void k(int d, const int *edges, const double *x,\n"
      "                  double *E) {\n"
      "  int e = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  int a = edges[2 * e];\n"
      "  atomicAdd(E, x[d * a + 1]);\n"
      "}\n"));
  expectNone("x", {"x[d * a + 1]: the stride of a in a*d is not a literal"});
}

TEST_F(ElementMapsTest, ElementIdNotThreadExclusive) {
  ASSERT_TRUE(analyseMaps(
      "__global__ void k(int n, const int *edges, const double *x,\n"
      "                  const double *y, const double *z, double *E) {\n"
      "  int t = threadIdx.x;\n"
      "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  atomicAdd(E, x[edges[2 * t]] + y[edges[2 * n]] +\n"
      "                   z[edges[i / 2]]);\n"
      "}\n"));
  expectNone("x", {"in edges[2*threadIdx.x]", "not arity*t + j"});
  expectNone("y", {"edges[2*n] does not depend on the thread"});
  expectNone("z", {"i / 2 is not affine"});
}

TEST_F(ElementMapsTest, PositionWithTwoElementIdsOrANegativeArity) {
  ASSERT_TRUE(analyseMaps(
      "__global__ void k(int n, const int *edges, const double *x,\n"
      "                  const double *y, double *E) {\n"
      "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  double s = y[edges[n - 2 * i]];\n"
      "  for (int t = i; t < n; t += blockDim.x * gridDim.x)\n"
      "    s += x[edges[2 * t + 2 * i]];\n"
      "  atomicAdd(E, s);\n"
      "}\n"));
  expectNone("x", {"with a positive arity and one element id"});
  expectNone("y", {"with a positive arity and one element id"});
}

TEST_F(ElementMapsTest, VertexModifiedAfterTheLoad) {
  ASSERT_TRUE(analyseMaps(
      "__global__ void k(const int *edges, const double *x, double *E) {\n"
      "  int e = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  int a = edges[2 * e];\n"
      "  a += 1;\n"
      "  atomicAdd(E, x[a]);\n"
      "}\n"));
  expectNone("x", {"x[a]: a is assigned more than once"});
}

TEST_F(ElementMapsTest, NarrowingCastOfTheVertex) {
  ASSERT_TRUE(
      analyseMaps("__global__ void k(const int *edges, const double *x,\n"
                  "                  const double *y, double *E) {\n"
                  "  int e = blockIdx.x * blockDim.x + threadIdx.x;\n"
                  "  short a = edges[2 * e];\n"
                  "  atomicAdd(E, x[(short)edges[2 * e + 1]] + y[a]);\n"
                  "}\n"));
  expectNone("x", {"may wrap the loaded value"});
  expectNone("y", {"may wrap the loaded value"});
}

TEST_F(ElementMapsTest, ComponentOutOfRange) {
  ASSERT_TRUE(analyseMaps(
      "__global__ void k(const int *edges, const double *x, const double *y,\n"
      "                  const double *z, double *E) {\n"
      "  int e = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  int a = edges[2 * e];\n"
      "  double s = x[3 * a + 3] + y[2 * edges[2 * e + 2]];\n"
      "  for (int k = 0; k <= 3; ++k) s += z[3 * a + k];\n"
      "  atomicAdd(E, s);\n"
      "}\n"));
  expectNone("x", {"x[3 * a + 3]: the component 3 is not in [0, 3)"});
  expectNone("y", {"the local vertex 2 is not in [0, 2)"});
  expectNone("z", {"the component 3 is not in [0, 3)"});
}

TEST_F(ElementMapsTest, PointerArithmeticAndEscapes) {
  ASSERT_TRUE(analyseMaps(
      "__device__ double get(const double *p, int i) { return p[i]; }\n"
      "__global__ void k(const int *edges, const double *x, const double *y,\n"
      "                  double *E) {\n"
      "  int e = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  int a = edges[2 * e];\n"
      "  atomicAdd(E, *(x + 3 * a) + get(y, a));\n"
      "}\n"));
  expectNone("x", {"x + 3 * a"});
  expectNone("y", {"passed to get"});
}

TEST_F(ElementMapsTest, MixedAccesses) {
  ASSERT_TRUE(analyseMaps(
      "__global__ void k(int n, const int *edges, const int *tris,\n"
      "                  const double *x, const double *y, const double *z,\n"
      "                  const double *w, double *E) {\n"
      "  int e = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  int a = edges[2 * e];\n"
      "  double s = x[2 * a] + x[a] + y[a] + y[e] + z[a + e];\n"
      "  s += w[a] + w[tris[3 * e]] + w[edges[3 * e + 1]];\n"
      "  for (int t = e; t < n; t += blockDim.x * gridDim.x)\n"
      "    s += y[edges[2 * t]];\n"
      "  atomicAdd(E, s + x[a + edges[2 * e + 1]]);\n"
      "}\n"));
  expectNone("x", {"x is read with the strides 2 (x[2 * a]) and 1 (x[a])"});
  expectNone("y", {"y[e] is not read through an index array"});
  expectNone("z", {"z[a + e]: the index depends on the thread itself"});
  expectNone("w", {"edges is read with the arities 2 and 3"});
}

TEST_F(ElementMapsTest, GidAndGridStrideElements) {
  ASSERT_TRUE(analyseMaps(
      "__global__ void k(int n, const int *edges, const double *x,\n"
      "                  double *E) {\n"
      "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  double s = x[edges[2 * i]];\n"
      "  for (int t = i; t < n; t += blockDim.x * gridDim.x)\n"
      "    s += x[edges[2 * t]];\n"
      "  atomicAdd(E, s);\n"
      "}\n"));
  expectNone("x", {"read the elements of i and t: not one element id"});
}

TEST_F(ElementMapsTest, TwoDimensionalKernel) {
  ASSERT_TRUE(analyseMaps(
      "__global__ void k(const int *edges, const double *x, double *E) {\n"
      "  int e = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  int r = threadIdx.y;\n"
      "  atomicAdd(E, x[edges[2 * e]] * r);\n"
      "}\n"));
  expectNone("x", {"more than one dimension"});
}

TEST_F(ElementMapsTest, LoopWithoutLiteralBoundsIsLargeWork) {
  ASSERT_TRUE(analyseMaps(
      "__global__ void k(int m, const int *edges, const double *x,\n"
      "                  double *E) {\n"
      "  int e = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  double s = x[edges[2 * e]];\n"
      "  for (int it = 0; it < m; ++it) s = s * s;\n"
      "  atomicAdd(E, s);\n"
      "}\n"));
  expectMap("x", "edges", 2, 1, Slots{{0, 0}});
  EXPECT_FALSE(Maps->getWork().Bounded);
  EXPECT_FALSE(Maps->getWork().isSmall());
  EXPECT_NE(Maps->getWork().describe().find("large"), std::string::npos);
}

TEST_F(ElementMapsTest, LargeElementWork) {
  // 40 products in a literal loop, plus 6 logs through a device function.
  ASSERT_TRUE(analyseMaps(
      "__device__ double f(double v) { return log(v) + v; }\n"
      "__global__ void k(const int *tets, const double *x, double *E) {\n"
      "  int t = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  double s = 1;\n"
      "  for (int it = 0; it < 40; ++it) s = s * x[tets[4 * t + 1]];\n"
      "  for (int it = 0; it < 6; ++it) s = f(s);\n"
      "  atomicAdd(E, s);\n"
      "}\n"));
  EXPECT_EQ(Maps->getWork().Operations, 46u);
  EXPECT_EQ(Maps->getWork().MathCalls, 6u);
  EXPECT_FALSE(Maps->getWork().isSmall());
}

//===----------------------------------------------------------------------===//
// The stores of a reverse sweep
//===----------------------------------------------------------------------===//

TEST_F(ElementMapsTest, ReverseSweepSlotStores) {
  ASSERT_TRUE(analyseMaps(
      "__global__ void k(int n, const int *edges, const double *x,\n"
      "                  double *_d_x, double *_d_y, double *_d_z,\n"
      "                  double *_d_w) {\n"
      "  int e = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  if (e < n) {\n"
      "    int a = edges[2 * e], b = edges[2 * e + 1];\n"
      "    for (int k = 0; k < 3; ++k) {\n"
      "      double r = x[3 * a + k] - x[3 * b + k];\n"
      "      atomicAdd(&_d_x[3 * a + k], r);\n"
      "      atomicAdd(&_d_x[3 * b + k], -r);\n"
      "      _d_y[3 * b + k] += r;\n"
      "      _d_z[3 * a + k] = r;\n"
      "      _d_w[3 * a + k] += _d_w[3 * b + k];\n"
      "    }\n"
      "  }\n"
      "}\n"));
  // Which statement adds to which slots: those of vertex 0, then vertex 1.
  const ElementMapResult &X = Maps->lookupStores(param("_d_x"));
  ASSERT_TRUE(X.IsMap) << X.Reason;
  EXPECT_EQ(X.Stride, 3);
  ASSERT_EQ(X.Accesses.size(), 2u);
  EXPECT_EQ(X.Accesses[0].Slots, (Slots{{0, 0}, {0, 1}, {0, 2}}));
  EXPECT_EQ(X.Accesses[1].Slots, (Slots{{1, 0}, {1, 1}, {1, 2}}));
  for (const SlotAccess &A : X.Accesses) {
    ASSERT_NE(A.Statement, nullptr);
    EXPECT_TRUE(llvm::isa<ExprStmt>(A.Statement));
    EXPECT_EQ(A.IndexArray->getName(), "edges");
  }
  EXPECT_NE(X.Accesses[0].Statement, X.Accesses[1].Statement);
  // As an array the primal reads, a written one has no map.
  expectNone("_d_x", {"_d_x is written by the kernel: atomicAdd writes "
                      "&_d_x[3 * a + k]"});
  const ElementMapResult &Y = Maps->lookupStores(param("_d_y"));
  ASSERT_TRUE(Y.IsMap) << Y.Reason;
  ASSERT_EQ(Y.Accesses.size(), 1u);
  EXPECT_TRUE(llvm::isa<AssignStmt>(Y.Accesses[0].Statement));
  EXPECT_EQ(Y.Accesses[0].Slots, (Slots{{1, 0}, {1, 1}, {1, 2}}));
  const ElementMapResult &Z = Maps->lookupStores(param("_d_z"));
  EXPECT_FALSE(Z.IsMap);
  EXPECT_EQ(Z.Reason, "_d_z[3 * a + k] is read or assigned, not only added to");
  const ElementMapResult &W = Maps->lookupStores(param("_d_w"));
  EXPECT_FALSE(W.IsMap);
  EXPECT_EQ(W.Reason, "_d_w[3 * b + k] is read or assigned, not only added to");
  // x is only read: its accesses are in lookup, lookupStores has none.
  EXPECT_FALSE(Maps->lookupStores(param("x")).IsMap);
  ASSERT_EQ(map("x").Accesses.size(), 2u);
  EXPECT_TRUE(llvm::isa<DeclStmt>(map("x").Accesses[0].Statement));
}

//===----------------------------------------------------------------------===//
// The ownership remark
//===----------------------------------------------------------------------===//

TEST_F(ElementMapsTest, OwnershipReasonNamesTheMap) {
  ASSERT_TRUE(analyseMaps(
      "__global__ void k(int *bad, const int *edges, const double *x,\n"
      "                  const double *y, double *E) {\n"
      "  int e = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  int a = edges[2 * e];\n"
      "  bad[e] = 0;\n"
      "  atomicAdd(E, x[3 * a + 1] + y[bad[e]]);\n"
      "}\n"));
  OwnershipResult X = of("x");
  EXPECT_EQ(X.Class, OwnershipClass::Shared);
  EXPECT_TRUE(X.ThroughIndexArray);
  EXPECT_EQ(X.Reason,
            "x[3 * a + 1]: gather through an index array edges; x: element "
            "map through edges (arity 2, stride 3), no element count: no "
            "guard t < n bounds the element id: no atomic-free strategy");
  OwnershipResult Y = of("y");
  EXPECT_TRUE(Y.ThroughIndexArray);
  EXPECT_NE(Y.Reason.find("; y: no element map: y[bad[e]]: gather through an "
                          "index array bad (bad is written by the kernel: "
                          "bad[e] is assigned)"),
            std::string::npos)
      << Y.Reason;
  EXPECT_FALSE(of("E").ThroughIndexArray);
  EXPECT_EQ(of("E").Reason.find("element map"), std::string::npos);
}

} // namespace
