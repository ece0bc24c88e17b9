//===- unittests/OwnershipTest.cpp - Tests of the ownership analysis ------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//

#include "OwnershipFixture.h"

using namespace meshad;
using namespace meshad::ir;

namespace {

TEST_F(OwnershipTest, Names) {
  EXPECT_STREQ(getOwnershipName(OwnershipClass::ThreadExclusive),
               "thread-exclusive");
  EXPECT_STREQ(getOwnershipName(OwnershipClass::TileExclusive),
               "tile-exclusive");
  EXPECT_STREQ(getOwnershipName(OwnershipClass::Uniform), "uniform");
  EXPECT_STREQ(getOwnershipName(OwnershipClass::Shared), "shared");
}

//===----------------------------------------------------------------------===//
// Thread-exclusive
//===----------------------------------------------------------------------===//

TEST_F(OwnershipTest, Elementwise) {
  ASSERT_TRUE(analyse(
      "__global__ void k(const float *x, float *y, int n) {\n"
      "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  if (i < n) y[i] = 2.f * x[i] * x[i];\n"
      "}\n"));
  // 1D proofs keep relying on a 1D launch.
  expectExclusiveIn("x", 1, {"every access is gid + {0}"});
  expectExclusiveIn("y", 1, {"gid + {0}"});
  expectShared("n", {"not an array parameter"});
}

TEST_F(OwnershipTest, GidInAnyOrderAndThroughCasts) {
  ASSERT_TRUE(analyse(
      "__global__ void k(float *x, float *y, float *z) {\n"
      "  int i = threadIdx.x + blockDim.x * blockIdx.x;\n"
      "  size_t j = (size_t)blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  x[i] += 1.f;\n"
      "  y[j] *= 2.f;\n"
      "  z[blockIdx.x * blockDim.x + threadIdx.x] = 0.f;\n"
      "}\n"));
  expectExclusive("x", {"gid"});
  expectExclusive("y", {"gid"});
  expectExclusive("z", {"gid"});
}

TEST_F(OwnershipTest, InterleavedPairs) {
  ASSERT_TRUE(analyse(
      "__global__ void k(const float *x, float2 *v, float *y) {\n"
      "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  y[2 * i] = x[i];\n"
      "  y[2 * i + 1] = v[i].x + v[i].y;\n"
      "}\n"));
  expectExclusive("y", {"every access is 2*gid + {0, 1}"});
  expectExclusive("v", {"gid + {0}"});
}

TEST_F(OwnershipTest, ShiftedButDisjoint) {
  ASSERT_TRUE(analyse(
      "__global__ void k(float *y) {\n"
      "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  y[3 * i + 5] = 1.f;\n"
      "  y[3 * (i + 2) + 1] = 1.f;\n" // 3*gid + 7
      "}\n"));
  expectExclusive("y", {"3*gid + {5, 7}"});
}

TEST_F(OwnershipTest, Guards) {
  ASSERT_TRUE(analyse(
      "__global__ void k(const float *x, float *y, int n) {\n"
      "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  if (i >= n) return;\n"
      "  y[i] = x[i];\n"
      "  if (i < n - 1) { y[i] += x[i]; }\n"
      "}\n"));
  expectExclusive("x");
  expectExclusive("y");
}

TEST_F(OwnershipTest, LocalCopiesOfTheIndex) {
  ASSERT_TRUE(analyse(
      "__global__ void k(const float *x, float *y) {\n"
      "  int tid = threadIdx.x;\n"
      "  int base = blockIdx.x * blockDim.x;\n"
      "  int i = base + tid;\n"
      "  int j = i;\n"
      "  const int two = 2;\n"
      "  y[two * j] = x[j];\n"
      "}\n"));
  expectExclusive("x", {"gid + {0}"});
  expectExclusive("y", {"2*gid"});
}

TEST_F(OwnershipTest, GridStrideLoop) {
  ASSERT_TRUE(analyse(
      "__global__ void k(const float *x, float *y, int n) {\n"
      "  for (int t = blockIdx.x * blockDim.x + threadIdx.x; t < n;\n"
      "       t += blockDim.x * gridDim.x)\n"
      "    y[t] = x[t];\n"
      "}\n"));
  expectExclusive("x", {"grid-stride", "t + {0}"});
  expectExclusive("y", {"grid-stride"});
}

TEST_F(OwnershipTest, GridStrideThroughVariables) {
  ASSERT_TRUE(analyse(
      "__global__ void k(float *y, int n) {\n"
      "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  int stride = gridDim.x * blockDim.x;\n"
      "  for (int t = i; t < n; t += stride) {\n"
      "    int u = 2 * t;\n"
      "    y[u] = 0.f;\n"
      "    y[u + 1] = 1.f;\n"
      "  }\n"
      "  for (int s = i; s < n; s += stride)\n"
      "    y[2 * s] += 1.f;\n"
      "}\n"));
  expectExclusive("y", {"2*t + {0, 1}", "grid-stride"});
}

//===----------------------------------------------------------------------===//
// Uniform
//===----------------------------------------------------------------------===//

TEST_F(OwnershipTest, EnergySum) {
  ASSERT_TRUE(analyse(
      "__global__ void k(const float *x, float *E, float *F, int n) {\n"
      "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  if (i >= n) return;\n"
      "  float e = x[i] * x[i];\n"
      "  atomicAdd(&E[0], e);\n"
      "  atomicAdd(F, e);\n"
      "}\n"));
  expectUniform("E", 0, {"every thread accesses E[0]"});
  expectUniform("F", 0, {"every thread accesses F[0]"});
  expectExclusive("x");
}

TEST_F(OwnershipTest, UniformReadsAndWrites) {
  ASSERT_TRUE(analyse(
      "__global__ void k(const float *w, float *y) {\n"
      "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  y[i] = w[3] * w[1 + 2];\n"
      "}\n"));
  expectUniform("w", 3, {"w[3]"});
}

TEST_F(OwnershipTest, TwoUniformElements) {
  ASSERT_TRUE(analyse(
      "__global__ void k(float *E, int n) {\n"
      "  atomicAdd(&E[0], 1.f);\n"
      "  atomicAdd(&E[1], 1.f);\n"
      "}\n"));
  expectUniform("E", std::nullopt,
                {"every access (E[0], E[1]) is the same in all threads at a "
                 "given point, but not one literal element"});
}

TEST_F(OwnershipTest, SymbolicUniformIndex) {
  ASSERT_TRUE(analyse("__global__ void k(float *E, float *L, int n) {\n"
                      "  atomicAdd(&E[n], 1.f);\n"
                      "  L[n - 1] += L[n - 1];\n"
                      "}\n"));
  expectUniform("E", std::nullopt, {"(E[n])", "not one literal element"});
  expectUniform("L", std::nullopt, {"(L[n - 1])", "same in all threads"});
}

TEST_F(OwnershipTest, UniformLoopCounterIndex) {
  ASSERT_TRUE(analyse(
      "__global__ void k(const float *x, float *p, const float *q, int n,\n"
      "                  int m) {\n"
      "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  float s = 0.f;\n"
      "  for (int k = 0; k < n; ++k) {\n"
      "    s += p[5 * k] * x[i];\n"
      "    s += p[5 * k + 1];\n"
      "  }\n"
      "  for (int k = m; k < n; k += 2)\n" // Uniform start and step.
      "    s += q[k];\n"
      "  if (i < n) p[5 * n + 2] = s;\n"
      "}\n"));
  expectUniform("p", std::nullopt,
                {"every access (p[5 * k], p[5 * k + 1], p[5 * n + 2]) is the "
                 "same in all threads at a given point"});
  expectUniform("q", std::nullopt, {"(q[k])"});
}

TEST_F(OwnershipTest, UnstableUniformIndexIsShared) {
  ASSERT_TRUE(analyse(
      "__global__ void k(float *E, float *F, float *G, int n) {\n"
      "  int j = 0;\n"
      "  if (threadIdx.x > 3) j = 1;\n" // Divergent.
      "  atomicAdd(&E[j], 1.f);\n"
      "  int s = n;\n"
      "  for (int t = 0; t < n; ++t) {\n"
      "    s = s + 2;\n"
      "    F[s] += 1.f;\n"
      "  }\n"
      "  int d = threadIdx.x / 32;\n"
      "  G[d] = 0.f;\n"
      "}\n"));
  expectShared("E", {"every thread accesses E[j], but j is assigned more than "
                     "once: not proven uniform"});
  expectShared("F", {"F[s], but s is assigned", "not proven uniform"});
  expectShared("G", {"not affine"});
}

//===----------------------------------------------------------------------===//
// Shared
//===----------------------------------------------------------------------===//

TEST_F(OwnershipTest, StencilRaceIsTileExclusive) {
  ASSERT_TRUE(analyse(
      "__global__ void k(const float *in, float *out, int n) {\n"
      "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  if (i < n - 1) out[i] = in[i] + in[i + 1];\n"
      "}\n"));
  expectTile("in", 1, 0, 1,
             {"in[i] and in[i + 1] overlap between neighbouring threads; "
              "every access is gid + {0, 1}: each block owns its tile but a "
              "halo of 1 element"});
  expectExclusive("out");
}

TEST_F(OwnershipTest, DifferentStrides) {
  ASSERT_TRUE(analyse(
      "__global__ void k(float *y) {\n"
      "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  y[2 * i] = 1.f;\n"
      "  y[i] = 2.f;\n"
      "}\n"));
  expectShared("y", {"y[2 * i]", "y[i]", "strides 2 and 1"});
}

TEST_F(OwnershipTest, NotAffine) {
  ASSERT_TRUE(analyse(
      "__global__ void k(const float *x, float *y, float *z, int n) {\n"
      "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  y[i] = x[i / 2];\n"
      "  z[i * n] = z[i % 4];\n"
      "}\n"));
  expectShared("x", {"index i / 2 is not affine"});
  expectShared("z", {"not affine"});
  expectExclusive("y");
}

TEST_F(OwnershipTest, ThreadIdxAlone) {
  ASSERT_TRUE(analyse("__global__ void k(float *y, float *b) {\n"
                      "  y[threadIdx.x] = 1.f;\n"
                      "  b[blockIdx.x] = 1.f;\n"
                      "}\n"));
  expectShared("y", {"threadIdx.x alone repeats in every block"});
  expectShared("b", {"blockIdx.x"});
}

TEST_F(OwnershipTest, MismatchedBlockBase) {
  ASSERT_TRUE(analyse(
      "__global__ void k(float *y) {\n"
      "  y[2 * blockIdx.x * blockDim.x + threadIdx.x] = 1.f;\n"
      "}\n"));
  expectShared("y", {"threadIdx.x alone"});
}

TEST_F(OwnershipTest, ScaledGid) {
  ASSERT_TRUE(analyse(
      "__global__ void k(float *y) {\n"
      "  y[2 * blockIdx.x * blockDim.x + 2 * threadIdx.x + 1] = 1.f;\n"
      "  y[2 * (blockDim.x * blockIdx.x + threadIdx.x)] = 1.f;\n"
      "}\n"));
  expectExclusive("y", {"2*gid + {0, 1}"});
}

TEST_F(OwnershipTest, TwoDimensionalIndex) {
  ASSERT_TRUE(analyse(
      "__global__ void k(float *img, float *t, int w) {\n"
      "  int c = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  int r = blockIdx.y * blockDim.y + threadIdx.y;\n"
      "  img[r * w + c] = 1.f;\n"
      "  t[4 * r + c] = 1.f;\n"
      "}\n"));
  // No guard keeps c below w (or 4): rows may overlap.
  expectShared("img", {"img[r * w + c]: 2D index r*w + c: c < w not proven"});
  expectShared("t", {"2D index 4*r + c: c < 4 not proven"});
}

TEST_F(OwnershipTest, Gather) {
  ASSERT_TRUE(analyse(
      "__global__ void k(const int *idx, const float *x, float *y) {\n"
      "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  y[idx[i]] += x[i];\n"
      "}\n"));
  expectShared("y", {"gather through an index array idx"});
  expectExclusive("idx");
  expectExclusive("x");
}

TEST_F(OwnershipTest, MeshGather) {
  ASSERT_TRUE(analyse(
      "__global__ void k(const int *faces, float *g, int nf) {\n"
      "  int f = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  if (f >= nf) return;\n"
      "  for (int c = 0; c < 3; ++c) {\n"
      "    int v = faces[3 * f + c];\n"
      "    atomicAdd(&g[v], 1.f);\n"
      "  }\n"
      "}\n"));
  expectShared("g", {"gather"});
  // 3*f + c with a loop counter c in [0, 2].
  expectExclusiveIn("faces", 1,
                    {"every access is 3*gid + {c} with c in [0, 2]"});
}

TEST_F(OwnershipTest, EscapesToDeviceCallee) {
  ASSERT_TRUE(analyse(
      "__device__ void put(float *p, int i, float v) { p[i] = v; }\n"
      "__global__ void k(const float *x, float *y) {\n"
      "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  put(y, i, x[i]);\n"
      "}\n"));
  expectShared("y", {"passed to put"});
  expectExclusive("x");
}

TEST_F(OwnershipTest, PointerCopiesAndArithmetic) {
  ASSERT_TRUE(analyse(
      "__global__ void k(float *a, float *b, float *c) {\n"
      "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  float *p = a;\n"
      "  p[i] = 1.f;\n"
      "  *(b + i) = 1.f;\n"
      "  c[i] = 1.f;\n"
      "  *c = 2.f;\n"
      "}\n"));
  expectShared("a", {"copied into p"});
  expectShared("b", {"b + i"});
  expectShared("c", {"dereferences"});
}

TEST_F(OwnershipTest, ScalarOffset) {
  ASSERT_TRUE(analyse(
      "__global__ void k(float *y, int off) {\n"
      "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  y[i + off] = 1.f;\n"
      "}\n"));
  expectShared("y", {"off is not a literal offset"});
}

TEST_F(OwnershipTest, UniformAndThreadAccessesOverlap) {
  ASSERT_TRUE(analyse(
      "__global__ void k(float *y) {\n"
      "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  y[i] = y[0];\n"
      "}\n"));
  expectShared("y", {"y[0]", "y[i]", "overlap"});
}

TEST_F(OwnershipTest, ReassignedIndex) {
  ASSERT_TRUE(analyse(
      "__global__ void k(float *y, float *z, int n) {\n"
      "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  int j = i;\n"
      "  j = j + 1;\n"
      "  y[j] = 1.f;\n"
      "  int s = 0;\n"
      "  for (int t = 0; t < n; ++t) {\n"
      "    int u = i + s;\n"
      "    s = s + 1;\n"
      "    z[u - s] = 1.f;\n"
      "  }\n"
      "}\n"));
  expectShared("y", {"j is assigned more than once"});
  expectShared("z", {"u depends on a variable assigned more than once"});
}

TEST_F(OwnershipTest, CounterStartingAtTheThreadId) {
  ASSERT_TRUE(analyse(
      "__global__ void k(float *y, int n) {\n"
      "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  for (int t = i; t < n; ++t)\n"
      "    y[t] = 1.f;\n"
      "}\n"));
  expectShared("y", {"not a grid-stride counter"});
}

TEST_F(OwnershipTest, GridStrideMixedWithGid) {
  ASSERT_TRUE(analyse(
      "__global__ void k(float *y, float *z, int n) {\n"
      "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  y[i] = 0.f;\n"
      "  for (int t = i; t < n; t += blockDim.x * gridDim.x) {\n"
      "    y[t] += 1.f;\n"
      "    z[t + 1] = z[t];\n"
      "  }\n"
      "}\n"));
  expectShared("y", {"grid-stride"});
  expectShared("z", {"z[t] and z[t + 1] overlap"});
}

TEST_F(OwnershipTest, AssignedOnceInABranch) {
  // Not a definition that dominates the use: no form.
  ASSERT_TRUE(analyse(
      "__global__ void k(float *a, int n) {\n"
      "  int i;\n"
      "  if (n > 0) i = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  a[i] = 1.f;\n"
      "}\n"));
  expectShared("a", {"i is assigned more than once or after its declaration"});
}

TEST_F(OwnershipTest, SoundnessCorners) {
  ASSERT_TRUE(analyse(
      "__global__ void k(float *a, float *b, float *c, float *d, float *e,\n"
      "                  float *f, int n) {\n"
      "  int i;\n"
      "  i = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  a[i] = 1.f;\n"
      "  b = b + n;\n"
      "  b[threadIdx.x + blockIdx.x * blockDim.x] = 1.f;\n"
      "  int j = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  c[-j] = c[1 - j];\n"
      "  int *q = &j;\n"
      "  *q = 0;\n"
      "  d[j] = 1.f;\n"
      "  if (threadIdx.x == 0) atomicAdd(&e[2], 1.f);\n"
      "  e[2] *= 2.f;\n"
      "  int m = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  f[(m - m) * n] = 0.f;\n"
      "  f[m - blockIdx.x * blockDim.x - threadIdx.x] = 0.f;\n"
      "}\n"));
  // Declared, then assigned once at the top of the kernel: a single
  // definition (reverse mode writes its hoisted locals this way).
  expectExclusive("a");
  expectShared("b", {"reassigned"});
  expectShared("c", {"the address of j is taken"});
  expectShared("d", {"the address of j is taken"});
  expect("e", OwnershipClass::Uniform, {"e[2]"});
  expect("f", OwnershipClass::Uniform, {"f[0]"});
}

TEST_F(OwnershipTest, NegativeStride) {
  ASSERT_TRUE(analyse(
      "__global__ void k(float *c, int n) {\n"
      "  int j = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  c[-2 * j + 1] = c[1 - 2 * j] + c[-2 * j];\n"
      "}\n"));
  expectExclusive("c", {"-2*gid + {0, 1}"});
}

TEST_F(OwnershipTest, NeverIndexed) {
  ASSERT_TRUE(analyse("__global__ void k(float *y) {}\n"));
  expectShared("y", {"never indexed"});
}

//===----------------------------------------------------------------------===//
// Tile-exclusive
//===----------------------------------------------------------------------===//

TEST_F(OwnershipTest, ThreePointStencil) {
  ASSERT_TRUE(analyse(
      "__global__ void k(const float *x, float *y, float *w, int n) {\n"
      "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  if (i > 0 && i < n - 1) y[i] = x[i - 1] - 2.f * x[i] + x[i + 1];\n"
      "  w[2 * i] = w[2 * i + 2];\n" // Stride 2, span 2: halo of 1.
      "}\n"));
  expectTile("x", 1, -1, 1,
             {"x[i - 1] and x[i + 1] overlap between neighbouring threads; "
              "every access is gid + {-1, 0, 1}: each block owns its tile but "
              "a halo of 2 elements"});
  expectTile("w", 2, 0, 2, {"2*gid + {0, 2}", "halo of 1 element"});
}

TEST_F(OwnershipTest, WidestTile) {
  ASSERT_TRUE(analyse(
      "__global__ void k(float *a, float *b) {\n"
      "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  a[i] = a[i + 32];\n"
      "  b[i] = b[i + 33];\n"
      "}\n"));
  expectTile("a", 1, 0, 32, {"halo of 32 elements"});
  expectShared("b", {"b[i] and b[i + 33] overlap between neighbouring threads",
                     "the offsets span 33 elements"});
}

TEST_F(OwnershipTest, OffsetsApartModuloTheStride) {
  ASSERT_TRUE(analyse(
      "__global__ void k(float *y) {\n"
      "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  y[2 * i] = y[2 * i + 3];\n" // Even and odd elements.
      "}\n"));
  expectExclusiveIn("y", 1, {"every access is 2*gid + {0, 3}"});
}

TEST_F(OwnershipTest, NoTiles) {
  ASSERT_TRUE(analyse(
      "__global__ void k(float *a, float *b, float *c, float *d, int n) {\n"
      "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  a[-i] = a[1 - i];\n"
      "  for (int t = i; t < n; t += blockDim.x * gridDim.x)\n"
      "    b[t] = b[t + 1];\n"
      "  c[threadIdx.x] = c[threadIdx.x + 1];\n"
      "  d[2 * i] = d[i + 1];\n"
      "}\n"));
  expectShared("a", {"a[-i] and a[1 - i] overlap between neighbouring threads; "
                     "a negative stride has no tiles"});
  expectShared("b", {"b[t] and b[t + 1] overlap between neighbouring threads"});
  expectShared("c", {"threadIdx.x alone"});
  expectShared("d", {"strides 2 and 1"});
}

//===----------------------------------------------------------------------===//
// 2D and 3D indices
//===----------------------------------------------------------------------===//

TEST_F(OwnershipTest, Image2D) {
  ASSERT_TRUE(analyse(
      "__global__ void k(const float *in, float *out, float *rgb, int W,\n"
      "                  int H) {\n"
      "  int gx = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  int gy = blockIdx.y * blockDim.y + threadIdx.y;\n"
      "  if (gx < W && gy < H) {\n"
      "    out[gy * W + gx] = 2.f * in[W * gy + gx];\n"
      "    for (int c = 0; c < 3; ++c)\n"
      "      rgb[3 * (gy * W + gx) + c] *= 2.f;\n"
      "  }\n"
      "}\n"));
  expectExclusiveIn("in", 2, {"every access is gy*W + gx + {0} with 0 <= gx "
                              "< W"});
  expectExclusiveIn("out", 2, {"gy*W + gx"});
  expectExclusiveIn("rgb", 2, {"every access is 3*(gy*W + gx) + {c} with 0 "
                               "<= gx < W, c in [0, 2]"});
}

TEST_F(OwnershipTest, SharedAlongY) {
  ASSERT_TRUE(analyse(
      "__global__ void k(const float *x, const float *w, float *out,\n"
      "                  float *E, int W, int H) {\n"
      "  int c = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  int r = blockIdx.y * blockDim.y + threadIdx.y;\n"
      "  if (c < W && r < H) {\n"
      "    out[r * W + c] = x[c] * w[r];\n"
      "    atomicAdd(E, x[c] * out[r * W + c]);\n"
      "  }\n"
      "}\n"));
  // Every row's thread reads x[c]: not exclusive in a 2D kernel.
  expectShared("x", {"x[c]: the index c does not involve threadIdx.y or "
                     "blockIdx.y, which the kernel uses"});
  expectShared("w", {"the index r does not depend on threadIdx.x"});
  expectExclusiveIn("out", 2, {"r*W + c + {0} with 0 <= c < W"});
  expectUniform("E", 0, {"every thread accesses E[0]"});
}

TEST_F(OwnershipTest, KernelDimsThroughLocalsAndCallees) {
  ASSERT_TRUE(analyse(
      "__device__ int layer() { return blockIdx.z; }\n"
      "__global__ void k(float *a, float *b, float *c, int n) {\n"
      "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  int t = threadIdx.y;\n"
      "  if (t == 0) a[i] = 1.f;\n"
      "  for (int j = i; j < n; j += blockDim.x * gridDim.x)\n"
      "    b[j] = 2.f;\n"
      "  if (layer() == 0) c[i] = 3.f;\n"
      "}\n"));
  expectShared("a", {"a[i]: the index i does not involve threadIdx.y or "
                     "blockIdx.y"});
  expectShared("b", {"b[j]: the index j does not involve threadIdx.y"});
  expectShared("c", {"c[i]: the index i does not involve threadIdx.y"});
}

TEST_F(OwnershipTest, KernelDimsInACallee) {
  ASSERT_TRUE(analyse(
      "__device__ int layer() { return blockIdx.z * blockDim.z; }\n"
      "__global__ void k(float *a, int W, int H) {\n"
      "  int gx = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  int gy = blockIdx.y * blockDim.y + threadIdx.y;\n"
      "  int l = layer();\n"
      "  if (gx < W && l == 0) a[gy * W + gx] = 1.f;\n"
      "}\n"));
  expectShared("a", {"the index gy*W + gx does not involve threadIdx.z or "
                     "blockIdx.z, which the kernel uses"});
}

TEST_F(OwnershipTest, UnusedDimensionsKeepTheProof) {
  ASSERT_TRUE(analyse(
      "__global__ void k(float *a, float *b, int W, int H) {\n"
      "  int gx = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  int gy = blockIdx.y * blockDim.y + threadIdx.y;\n"
      "  if (gx < W && gy < H && blockDim.z == 1) a[gy * W + gx] = 1.f;\n"
      "  if (gx < W && gridDim.y > 0) b[gy * W + gx] = 2.f;\n"
      "}\n"));
  // blockDim and gridDim are the same in every thread.
  expectExclusiveIn("a", 2, {"gy*W + gx + {0} with 0 <= gx < W"});
  expectExclusiveIn("b", 2, {"gy*W + gx + {0} with 0 <= gx < W"});
}

TEST_F(OwnershipTest, EarlyReturnGuards) {
  ASSERT_TRUE(analyse(
      "__global__ void k(float *a, float *b, float *c, float *d, int W,\n"
      "                  int H) {\n"
      "  int gx = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  int gy = blockIdx.y * blockDim.y + threadIdx.y;\n"
      "  a[gy * W + gx] = 0.f;\n" // Before the early return.
      "  if (gx >= W || gy >= H) return;\n"
      "  b[gy * W + gx] = 1.f;\n"
      "  if (W > gx) { c[gy * W + gx] = 1.f; } else { d[gy * W + gx] = 1.f; }\n"
      "}\n"));
  expectShared("a", {"a[gy * W + gx]: 2D index gy*W + gx: gx < W not proven"});
  expectExclusiveIn("b", 2, {"0 <= gx < W"});
  expectExclusiveIn("c", 2, {"0 <= gx < W"});
  expectExclusiveIn("d", 2, {"0 <= gx < W"}); // Unreachable, still proven.
}

TEST_F(OwnershipTest, GuardsThatSayNothing) {
  ASSERT_TRUE(analyse(
      "__global__ void k(float *a, float *b, float *c, float *d, int W,\n"
      "                  int H, unsigned U) {\n"
      "  int gx = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  int gy = blockIdx.y * blockDim.y + threadIdx.y;\n"
      "  unsigned ux = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  if (gx < W || gy < H) a[gy * W + gx] = 0.f;\n"
      "  if (gx < H) b[gy * W + gx] = 0.f;\n"
      "  if (ux < W) c[gy * W + ux] = 0.f;\n" // W < 0 passes every ux.
      "  if (ux < U) d[gy * U + ux] = 0.f;\n"
      "  if (gx > W) { if (gx < W) a[gy * W + gx] = 1.f; }\n"
      "}\n"));
  expectShared("a", {"a[gy * W + gx]: 2D index gy*W + gx: gx < W not proven"});
  expectShared("b", {"gx < W not proven"});
  expectShared("c", {"2D index gy*W + gx: gx < W not proven"});
  expectExclusiveIn("d", 2, {"gy*U + gx + {0} with 0 <= gx < U"});
}

TEST_F(OwnershipTest, EarlyContinueAndBreak) {
  ASSERT_TRUE(analyse(
      "__global__ void k(float *a, float *b, float *c, int W, int n) {\n"
      "  int gx = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  int gy = blockIdx.y * blockDim.y + threadIdx.y;\n"
      "  for (int t = 0; t < n; ++t) {\n"
      "    if (gx >= W) continue;\n"
      "    a[gy * W + gx] += 1.f;\n"
      "  }\n"
      "  for (int t = 0; t < n; ++t) {\n"
      "    if (gx >= W) { for (int s = 0; s < n; ++s) break; }\n"
      "    b[gy * W + gx] += 1.f;\n" // The break leaves the inner loop.
      "  }\n"
      "  while (n > 0) {\n"
      "    if (gx < W) {} else break;\n"
      "    c[gy * W + gx] += 1.f;\n"
      "  }\n"
      "}\n"));
  expectExclusiveIn("a", 2, {"0 <= gx < W"});
  expectShared("b", {"gx < W not proven"});
  expectExclusiveIn("c", 2, {"0 <= gx < W"});
}

TEST_F(OwnershipTest, OneWindowForAllAccesses) {
  ASSERT_TRUE(analyse(
      "__global__ void k(float *a, float *b) {\n"
      "  int gx = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  int gy = blockIdx.y * blockDim.y + threadIdx.y;\n"
      "  if (gx < 16) a[gy * 16 + gx] = 0.f;\n"
      // Threads (16, 0) and (0, 0) both write a[0].
      "  if (gx >= 16 && gx < 32) a[gy * 16 + gx - 16] = 1.f;\n"
      "  if (gx >= 1 && gx <= 16) b[gy * 16 + gx - 1] = 1.f;\n"
      "}\n"));
  expectShared("a", {"a[gy * 16 + gx - 16]: 2D index 16*gy + gx: gx < 16 not "
                     "proven"});
  expectExclusiveIn("b", 2, {"gy*16 + gx + {-1} with 1 <= gx < 17"});
}

TEST_F(OwnershipTest, Index3D) {
  ASSERT_TRUE(analyse(
      "__global__ void k(float *v, float *w, int W, int H, int D) {\n"
      "  int gx = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  int gy = blockIdx.y * blockDim.y + threadIdx.y;\n"
      "  int gz = blockIdx.z * blockDim.z + threadIdx.z;\n"
      "  if (gx < W && gy < H && gz < D) v[(gz * H + gy) * W + gx] = 1.f;\n"
      "  if (gx < W && gz < D) w[(gz * H + gy) * W + gx] = 1.f;\n"
      "}\n"));
  expectExclusiveIn("v", 3, {"every access is (gz*H + gy)*W + gx + {0} with "
                             "0 <= gx < W, 0 <= gy < H"});
  expectShared("w", {"3D index gz*H*W + gy*W + gx: gy < H not proven"});
}

TEST_F(OwnershipTest, IndexFormsThatMix) {
  ASSERT_TRUE(analyse(
      "__global__ void k(float *a, float *b, float *c, float *d, int W,\n"
      "                  int n) {\n"
      "  int gx = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  int gy = blockIdx.y * blockDim.y + threadIdx.y;\n"
      "  if (gx >= W) return;\n"
      "  a[gy * W + gx] = a[gy * W + gx + 1];\n"
      "  b[gy * W + 2 * gx] = 0.f;\n"
      "  c[gy * W + gx] = c[gx];\n"
      "  for (int k = 1; k < n; ++k)\n"
      "    if (gx < k) d[gy * k + gx] = 0.f;\n"
      "}\n"));
  expectShared("a", {"a[gy * W + gx] and a[gy * W + gx + 1] overlap between "
                     "neighbouring threads"});
  expectShared("b", {"2D index gy*W + 2*gx: the coefficient W of gy is not a "
                     "multiple of 2"});
  expectShared("c", {"c[gy * W + gx] and c[gx] mix the thread index forms "
                     "gy*W + gx and gx"});
  expectShared("d", {"the coefficient k of gy changes while the kernel runs"});
}

TEST_F(OwnershipTest, OtherLayouts) {
  ASSERT_TRUE(analyse(
      "__global__ void k(float *a, float *b, float *c, float *e, int W,\n"
      "                  int H) {\n"
      "  int gx = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  int gy = blockIdx.y * blockDim.y + threadIdx.y;\n"
      "  a[gy * (blockDim.x * gridDim.x) + gx] = 0.f;\n" // Always in range.
      "  if (gy < H) b[gx * H + gy] = 0.f;\n"            // Column-major.
      "  int sx = gx - 1;\n"
      "  if (sx >= 0 && sx < W) c[gy * W + sx] = 0.f;\n"
      "  e[gy] = 0.f;\n"
      "}\n"));
  expectExclusiveIn("a", 2, {"0 <= gx < blockDim.x*gridDim.x"});
  expectExclusiveIn("b", 2, {"gx*H + gy + {0} with 0 <= gy < H"});
  expectExclusiveIn("c", 2, {"gy*W + gx + {-1} with 1 <= gx < W + 1"});
  expectShared("e", {"the index gy does not depend on threadIdx.x"});
}

TEST_F(OwnershipTest, ChangingWidth) {
  ASSERT_TRUE(analyse(
      "__global__ void k(float *a, int W, int H) {\n"
      "  int gx = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  int gy = blockIdx.y * blockDim.y + threadIdx.y;\n"
      "  if (gx < W) a[gy * W + gx] = 0.f;\n"
      "  W = W + 1;\n"
      "}\n"));
  expectShared("a", {"the coefficient W of gy changes while the kernel runs"});
}

//===----------------------------------------------------------------------===//
// Small per-thread loops
//===----------------------------------------------------------------------===//

TEST_F(OwnershipTest, SmallLoops) {
  ASSERT_TRUE(analyse(
      "__global__ void k(float *a, float *b, float *c, float *d, float *e,\n"
      "                  int n) {\n"
      "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  for (int q = 2; q >= 0; --q) a[3 * i + q] = 0.f;\n"
      "  for (int p = 0; p <= 1; ++p)\n"
      "    for (int q = 0; q != 3; ++q) b[6 * i + 3 * p + q] = 0.f;\n"
      "  for (int q = 0; q < 6; q += 2) c[6 * i + q + 1] = 0.f;\n"
      "  for (int q = 0; q < 4; ++q) d[3 * i + q] = 0.f;\n"
      "  for (int q = 0; q < n; ++q) e[3 * i + q] = 0.f;\n"
      "}\n"));
  expectExclusiveIn("a", 1, {"3*gid + {q} with q in [0, 2]"});
  expectExclusiveIn("b", 1, {"6*gid + {3*p + q} with p in [0, 1], q in [0, "
                             "2]"});
  expectExclusiveIn("c", 1, {"6*gid + {q + 1} with q in [0, 5]"});
  // Four elements per thread, three apart: neighbours share one.
  expectTile("d", 3, 0, 3,
             {"d[3 * i + q] overlaps itself between neighbouring threads; "
              "every access is 3*gid + {q} with q in [0, 3]: each block owns "
              "its tile but a halo of 1 element"});
  expectShared("e", {"e[3 * i + q]: q is not a literal offset"});
}

TEST_F(OwnershipTest, SmallLoopsIn2D) {
  ASSERT_TRUE(analyse(
      "__global__ void k(float *a, float *b, int W, int H) {\n"
      "  int gx = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  int gy = blockIdx.y * blockDim.y + threadIdx.y;\n"
      "  if (gx >= W || gy >= H) return;\n"
      "  for (int c = 0; c < 3; ++c) a[3 * (gy * W + gx) + c] = 0.f;\n"
      "  for (int c = 0; c < 4; ++c) b[3 * (gy * W + gx) + c] = 0.f;\n"
      "}\n"));
  expectExclusiveIn("a", 2, {"3*(gy*W + gx) + {c} with 0 <= gx < W, c in "
                             "[0, 2]"});
  expectShared("b", {"b[3 * (gy * W + gx) + c] overlaps itself between "
                     "neighbouring threads"});
}

TEST_F(OwnershipTest, LoopsWithoutLiteralRanges) {
  ASSERT_TRUE(analyse(
      "__global__ void k(float *a, float *b, float *c, float *d, int n) {\n"
      "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  for (unsigned q = 2; q >= 0; --q) a[3 * i + q] = 0.f;\n" // Wraps.
      "  for (unsigned q = 3; q >= 1; --q) d[4 * i + q] = 0.f;\n"
      "  for (int q = 0; q < 3; ++q) { b[3 * i + q] = 0.f; if (n) break; }\n"
      "  for (int q = 0; q < 3; q += n) c[3 * i + q] = 0.f;\n"
      "}\n"));
  expectShared("a", {"q is not a literal offset"});
  expectExclusiveIn("b", 1, {"q in [0, 2]"});
  expectShared("c", {"q is not a literal offset"});
  expectExclusiveIn("d", 1, {"4*gid + {q} with q in [1, 3]"});
}

} // namespace
