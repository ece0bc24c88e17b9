// The incidence of an element kernel's index array (vertex -> the slots
// that name it), built on the GPU (Thrust) or under the CPU emulation: the
// same arrays as a brute-force reference, an atomic-free gather over it
// that is bitwise reproducible, a rebuild after the connectivity changed,
// and an index out of range as an error. Also runs on the GPU
// (scripts/gpu/tests.txt).
//
// RUN: %clangxx %cpu_cuda_flags -I%test_inputs %s -o %t
// RUN: %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: PASS triangles: incidence as the reference
// CHECK: PASS edges: incidence as the reference
// CHECK: PASS gather equals the sum per vertex
// CHECK: PASS gather is bitwise reproducible
// CHECK: PASS rebuilt after the connectivity changed
// CHECK: error: incidence: index[7] = 10242 is not a vertex (10242 vertices)

#include <meshad/cpu/Portable.h>
#include <meshad/runtime/Incidence.h>
#include <meshad/runtime/Subdivision.h>

#include <cmath>
#include <cstdio>
#include <cstring>

using namespace meshad::runtime;

static int Failures = 0;
static void check(bool Ok, const char *What) {
  std::printf("%s %s\n", Ok ? "PASS" : "FAIL", What);
  Failures += !Ok;
}

static TriMesh icosphere(int Levels) {
  const double T = (1 + std::sqrt(5.0)) / 2;
  TriMesh M;
  M.X = {-1, T,  0, 1, T,  0, -1, -T, 0,  1, -T, 0,  0, -1, T,  0, 1, T,
         0,  -1, -T, 0, 1, -T, T,  0,  -1, T, 0,  1, -T, 0, -1, -T, 0, 1};
  M.Tris = {0, 11, 5,  0, 5,  1, 0, 1, 7, 0, 7,  10, 0, 10, 11,
            1, 5,  9,  5, 11, 4, 11, 10, 2, 10, 7, 6,  7, 1,  8,
            3, 9,  4,  3, 4,  2, 3, 2, 6, 3, 6,  8,  3, 8,  9,
            4, 9,  5,  2, 4,  11, 6, 2, 10, 8, 6, 7,  9, 8,  1};
  return loopSubdivide(M, Levels);
}

/// The reference: for each vertex, every slot naming it, in increasing order.
static bool sameAsReference(const std::vector<int> &Idx, int NumVertices,
                            const Csr &Got) {
  if (Got.numRows() != NumVertices)
    return false;
  std::vector<std::vector<int>> Rows(NumVertices);
  for (size_t S = 0; S < Idx.size(); ++S)
    Rows[Idx[S]].push_back(static_cast<int>(S));
  for (int V = 0; V < NumVertices; ++V) {
    if (Got.rowSize(V) != static_cast<int>(Rows[V].size()))
      return false;
    for (int I = 0; I < Got.rowSize(V); ++I)
      if (Got.Entries[Got.Offsets[V] + I] != Rows[V][I])
        return false;
  }
  return true;
}

static int *toDevice(const std::vector<int> &H) {
  int *D = nullptr;
  cudaMalloc(reinterpret_cast<void **>(&D), H.size() * sizeof(int));
  cudaMemcpy(D, H.data(), H.size() * sizeof(int), cudaMemcpyHostToDevice);
  return D;
}

/// Each vertex adds its incident elements' weights, in the incidence's
/// order: no atomics.
__global__ void gather(const int *Offsets, const int *Slots, int Arity,
                       const double *W, int NumVertices, double *Out) {
  int V = blockIdx.x * blockDim.x + threadIdx.x;
  if (V >= NumVertices)
    return;
  double Sum = 0;
  for (int I = Offsets[V]; I < Offsets[V + 1]; ++I)
    Sum += W[Slots[I] / Arity] * (1 + Slots[I] % Arity);
  Out[V] = Sum;
}

static std::vector<double> runGather(const Incidence &Inc, const double *DW) {
  int NV = Inc.numVertices();
  double *DOut = nullptr;
  cudaMalloc(reinterpret_cast<void **>(&DOut), NV * sizeof(double));
  MESHAD_LAUNCH(gather, (NV + 127) / 128, 128)
  (Inc.offsets(), Inc.slots(), Inc.arity(), DW, NV, DOut);
  std::vector<double> Out(NV);
  cudaMemcpy(Out.data(), DOut, NV * sizeof(double), cudaMemcpyDeviceToHost);
  cudaFree(DOut);
  return Out;
}

int main() {
  TriMesh M = icosphere(5);
  int NV = M.numVertices(), NT = M.numTriangles();
  int *DTris = toDevice(M.Tris);
  Incidence Inc(DTris, NT, 3, NV);
  check(Inc.matches(NT, 3, NV) && sameAsReference(M.Tris, NV, Inc.toHost()),
        "triangles: incidence as the reference");

  MeshTopology Top = buildTopology(M);
  int *DEdges = toDevice(Top.Edges);
  Incidence EdgeInc(DEdges, Top.numEdges(), 2, NV);
  check(sameAsReference(Top.Edges, NV, EdgeInc.toHost()),
        "edges: incidence as the reference");

  std::vector<double> W(NT);
  for (int T = 0; T < NT; ++T)
    W[T] = std::sin(0.37 * T) * 1e3 + 1e-3 * T;
  double *DW = nullptr;
  cudaMalloc(reinterpret_cast<void **>(&DW), NT * sizeof(double));
  cudaMemcpy(DW, W.data(), NT * sizeof(double), cudaMemcpyHostToDevice);
  std::vector<double> First = runGather(Inc, DW);
  std::vector<double> Expected(NV, 0.0);
  for (int S = 0; S < 3 * NT; ++S)
    Expected[M.Tris[S]] += W[S / 3] * (1 + S % 3);
  bool Close = true;
  for (int V = 0; V < NV; ++V)
    Close &= std::fabs(First[V] - Expected[V]) <= 1e-12 * (1 + std::fabs(Expected[V]));
  check(Close, "gather equals the sum per vertex");
  bool Same = true;
  for (int Run = 0; Run < 5; ++Run) {
    Incidence Again(DTris, NT, 3, NV);
    std::vector<double> Next = runGather(Again, DW);
    Same &= std::memcmp(Next.data(), First.data(), NV * sizeof(double)) == 0;
  }
  check(Same, "gather is bitwise reproducible");

  // New connectivity: every triangle turned (a, b, c) -> (b, c, a).
  std::vector<int> Turned(M.Tris.size());
  for (int T = 0; T < NT; ++T)
    for (int J = 0; J < 3; ++J)
      Turned[3 * T + J] = M.Tris[3 * T + (J + 1) % 3];
  cudaMemcpy(DTris, Turned.data(), Turned.size() * sizeof(int),
             cudaMemcpyHostToDevice);
  Inc.rebuild(DTris, NT, 3, NV);
  check(sameAsReference(Turned, NV, Inc.toHost()),
        "rebuilt after the connectivity changed");

  Turned[7] = NV;
  cudaMemcpy(DTris, Turned.data(), Turned.size() * sizeof(int),
             cudaMemcpyHostToDevice);
  try {
    Inc.rebuild(DTris, NT, 3, NV);
    check(false, "an index out of range is an error");
  } catch (const MeshError &E) {
    std::printf("error: %s\n", E.what());
  }
  cudaFree(DTris);
  cudaFree(DEdges);
  cudaFree(DW);
  std::printf("%s\n", Failures ? "FAILED" : "ALL PASSED");
  return Failures != 0;
}
