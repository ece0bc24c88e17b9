// The runtime of loops run in step across a warp (meshad/codegen/WarpStep.h,
// issue 15), on the CPU emulation, in blocks of 48 threads (a full warp and
// a partial one of 16 lanes): meshad::warpMaxSteps is the largest count of
// the warp's lanes; meshad::warpUniformAdd adds the sum of the set lanes to
// their common element with one atomicAdd (lanes with a null address add
// nothing, an all-null warp nothing at all), and each lane's own value when
// the set lanes name different elements. meshad::warpUniformAdds does the
// same for several pairs in one reduce-scatter tree: 1 to 12 pairs (odd and
// even counts, so the tree's padding is exercised), lanes setting only some
// pairs, whole warps adding zero, pairs whose lanes name different elements,
// and the partial warp (per-pair path). meshad::warpKeyedAdds (one key per
// lane, quadruple J adding at Out[(1 + J % 3) * key + 30 * J]): 1 to 12
// quadruples, keys shared by the warp or split (the per-lane path), the
// zero warp's keys wrong (a lane adding only zeros is not checked).
// Exact sums of small integers.
//
// RUN: %clangxx %cpu_cuda_flags -I%test_inputs %s -o %t && %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: PASS warpMaxSteps
// CHECK: PASS warpUniformAdd same element
// CHECK: PASS warpUniformAdd different elements
// CHECK: PASS warpUniformAdds 1 pairs
// CHECK: PASS warpUniformAdds 9 pairs
// CHECK: PASS warpUniformAdds 12 pairs
// CHECK: PASS warpUniformAdds different elements
// CHECK: PASS warpKeyedAdds 1 quadruples
// CHECK: PASS warpKeyedAdds 9 quadruples
// CHECK: PASS warpKeyedAdds 12 quadruples
// CHECK: PASS warpKeyedAdds different keys
// CHECK: numeric checks: 11 passed, 0 failed
#include "NumericCheck.h"
#include <meshad/Differentiator.h>
#include <meshad/cpu/Portable.h>

#include <tuple>
#include <utility>

__global__ void steps(int *Out) {
  int T = threadIdx.x;
  Out[T] = meshad::warpMaxSteps(T < 32 ? (T * 7) % 11 : T % 5);
}

// Lanes T % 3 != 0 add T to Sums[blockIdx.x] (uniform); Per[T % 4] gets
// T + 1 from every lane (different elements).
__global__ void adds(double *Sums, double *Per) {
  int T = threadIdx.x;
  double *At = T % 3 != 0 ? &Sums[blockIdx.x] : nullptr;
  meshad::warpUniformAdd(At, double(T));
  meshad::warpUniformAdd(&Per[T % 4], double(T + 1));
  meshad::warpUniformAdd<double>(nullptr, 1.0);
}

// Pair J of lane T: element Out[4 * (blockIdx.x * 12 + J) + (Split ? T % 3
// : 0)] gets (T + 1) * (J + 2) when (T + J) % 4 != 0 and the lane is not in
// the zero warp (the first of block 1), else nothing (a null address, or a
// zero value in every lane of the zero warp).
template <unsigned... J>
__device__ void addPairs(double *Out, bool Split,
                         std::integer_sequence<unsigned, J...>) {
  int T = threadIdx.x;
  bool Zero = blockIdx.x == 1 && T < 32;
  auto At = [&](unsigned K) {
    return (T + K) % 4 != 0
               ? &Out[4 * (blockIdx.x * 12 + K) + (Split ? T % 3 : 0)]
               : nullptr;
  };
  auto Value = [&](unsigned K) { return Zero ? 0.0 : double((T + 1) * (K + 2)); };
  std::apply([](auto... Pairs) { meshad::warpUniformAdds(Pairs...); },
             std::tuple_cat(std::make_tuple(At(J), Value(J))...));
}

template <unsigned N> __global__ void pairs(double *Out, bool Split) {
  addPairs(Out, Split, std::make_integer_sequence<unsigned, N>());
}

/// What pairs<N> adds into \p Out, in exact arithmetic.
template <unsigned N> double pairsError(const double *Out, bool Split) {
  double Bad = 0;
  for (unsigned B = 0; B < 2; ++B)
    for (unsigned K = 0; K < 12; ++K)
      for (unsigned S = 0; S < 4; ++S) {
        double E = 0;
        for (unsigned T = 0; T < 48; ++T)
          if (K < N && (T + K) % 4 != 0 && !(B == 1 && T < 32) &&
              (Split ? T % 3 : 0) == S)
            E += double((T + 1) * (K + 2));
        Bad += std::fabs(Out[4 * (B * 12 + K) + S] - E);
      }
  return Bad;
}

template <unsigned N> double runPairs(bool Split) {
  double *D, Out[96];
  cudaMalloc((void **)&D, sizeof(Out));
  cudaMemset(D, 0, sizeof(Out));
  MESHAD_LAUNCH(pairs<N>, dim3(2), dim3(48))(D, Split);
  cudaMemcpy(Out, D, sizeof(Out), cudaMemcpyDeviceToHost);
  cudaFree(D);
  return pairsError<N>(Out, Split);
}

// Quadruple J of lane T adds (T + 1) * (J + 2) at Out[(1 + J % 3) * key +
// 30 * J] when (T + J) % 4 != 0 and the lane is not in the zero warp (the
// first of block 1), else zero; the key is 4 * blockIdx.x + (Split ? T % 3
// : 0), or 4 * blockIdx.x + 3, which no element is added at, in a lane that
// adds only zeros (lane 0, the first holder, among them).
template <unsigned... J>
__device__ void addKeyed(double *Out, bool Split,
                         std::integer_sequence<unsigned, J...>) {
  int T = threadIdx.x;
  bool Zero = blockIdx.x == 1 && T < 32;
  bool AllZero = Zero || (sizeof...(J) == 1 && T % 4 == 0);
  int Key = 4 * blockIdx.x + (AllZero ? 3 : Split ? T % 3 : 0);
  auto Value = [&](unsigned K) {
    return Zero || (T + K) % 4 == 0 ? 0.0 : double((T + 1) * (K + 2));
  };
  std::apply([&](auto... Quads) { meshad::warpKeyedAdds(Key, Quads...); },
             std::tuple_cat(std::make_tuple(Out, int(1 + J % 3), int(30 * J),
                                            Value(J))...));
}

template <unsigned N> __global__ void keyed(double *Out, bool Split) {
  addKeyed(Out, Split, std::make_integer_sequence<unsigned, N>());
}

template <unsigned N> double runKeyed(bool Split) {
  double *D, Out[400] = {}, Expected[400] = {};
  cudaMalloc((void **)&D, sizeof(Out));
  cudaMemset(D, 0, sizeof(Out));
  MESHAD_LAUNCH(keyed<N>, dim3(2), dim3(48))(D, Split);
  cudaMemcpy(Out, D, sizeof(Out), cudaMemcpyDeviceToHost);
  cudaFree(D);
  for (unsigned B = 0; B < 2; ++B)
    for (unsigned T = 0; T < 48; ++T)
      for (unsigned K = 0; K < N; ++K)
        if ((T + K) % 4 != 0 && !(B == 1 && T < 32))
          Expected[(1 + K % 3) * (4 * B + (Split ? T % 3 : 0)) + 30 * K] +=
              double((T + 1) * (K + 2));
  double Bad = 0;
  for (unsigned I = 0; I < 400; ++I)
    Bad += std::fabs(Out[I] - Expected[I]);
  return Bad;
}

int main() {
  int *DSteps;
  double *DSums, *DPer;
  cudaMalloc((void **)&DSteps, 48 * sizeof(int));
  cudaMalloc((void **)&DSums, 2 * sizeof(double));
  cudaMalloc((void **)&DPer, 4 * sizeof(double));
  cudaMemset(DSums, 0, 2 * sizeof(double));
  cudaMemset(DPer, 0, 4 * sizeof(double));
  MESHAD_LAUNCH(steps, dim3(1), dim3(48))(DSteps);
  MESHAD_LAUNCH(adds, dim3(2), dim3(48))(DSums, DPer);
  int Steps[48];
  double Sums[2], Per[4];
  cudaMemcpy(Steps, DSteps, sizeof(Steps), cudaMemcpyDeviceToHost);
  cudaMemcpy(Sums, DSums, sizeof(Sums), cudaMemcpyDeviceToHost);
  cudaMemcpy(Per, DPer, sizeof(Per), cudaMemcpyDeviceToHost);
  int Bad = 0;
  for (int T = 0; T < 48; ++T)
    Bad += Steps[T] != (T < 32 ? 10 : 4);
  MESHAD_CHECK_CLOSE("warpMaxSteps", double(Bad), 0.0);
  double Expected = 0, Got = Sums[0] + Sums[1];
  for (int T = 0; T < 48; ++T)
    Expected += T % 3 != 0 ? 2 * T : 0;
  MESHAD_CHECK_CLOSE("warpUniformAdd same element", Got, Expected);
  double PerBad = 0;
  for (int K = 0; K < 4; ++K) {
    double E = 0;
    for (int T = K; T < 48; T += 4)
      E += 2 * (T + 1);
    PerBad += std::fabs(Per[K] - E);
  }
  MESHAD_CHECK_CLOSE("warpUniformAdd different elements", PerBad, 0.0);
  double Bad1 = runPairs<1>(false) + runPairs<2>(false) + runPairs<3>(false);
  MESHAD_CHECK_CLOSE("warpUniformAdds 1 pairs", Bad1, 0.0);
  double Bad9 = runPairs<5>(false) + runPairs<8>(false) + runPairs<9>(false);
  MESHAD_CHECK_CLOSE("warpUniformAdds 9 pairs", Bad9, 0.0);
  double Bad12 = runPairs<11>(false) + runPairs<12>(false);
  MESHAD_CHECK_CLOSE("warpUniformAdds 12 pairs", Bad12, 0.0);
  double BadSplit = runPairs<9>(true) + runPairs<4>(true);
  MESHAD_CHECK_CLOSE("warpUniformAdds different elements", BadSplit, 0.0);
  double Keyed1 = runKeyed<1>(false) + runKeyed<2>(false) + runKeyed<3>(false);
  MESHAD_CHECK_CLOSE("warpKeyedAdds 1 quadruples", Keyed1, 0.0);
  double Keyed9 = runKeyed<5>(false) + runKeyed<8>(false) + runKeyed<9>(false);
  MESHAD_CHECK_CLOSE("warpKeyedAdds 9 quadruples", Keyed9, 0.0);
  double Keyed12 = runKeyed<11>(false) + runKeyed<12>(false);
  MESHAD_CHECK_CLOSE("warpKeyedAdds 12 quadruples", Keyed12, 0.0);
  double KeyedSplit = runKeyed<9>(true) + runKeyed<4>(true);
  MESHAD_CHECK_CLOSE("warpKeyedAdds different keys", KeyedSplit, 0.0);
  return meshad::test::summary();
}
