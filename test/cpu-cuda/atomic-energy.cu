// CUDA-on-CPU emulation: atomicAdd of a double energy over many blocks
// (integer-valued terms, so the expected total is exact), the old values
// atomicAdd returns, the integer atomics, and two launches running in
// parallel OS threads on the same accumulator.
//
// RUN: %clangxx %cpu_cuda_flags -I%test_inputs %s -o %t && %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: PASS double energy
// CHECK: PASS float energy
// CHECK: PASS old values are a permutation
// CHECK: PASS integer atomics
// CHECK: PASS parallel launches
// CHECK: numeric checks: {{[0-9]+}} passed, 0 failed

#include "NumericCheck.h"

#include <thread>
#include <vector>

namespace {

/// The energy of particle I: an integer in [-8, 8].
__device__ __host__ double energyOf(int I) { return double(I % 17 - 8); }

__global__ void totalEnergy(int N, double *Total, float *TotalF) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I >= N)
    return;
  atomicAdd(Total, energyOf(I));
  atomicAdd(TotalF, float(I % 5));
}

/// Ticket[I] = old counter value.
__global__ void tickets(int N, unsigned *Counter, unsigned *Ticket) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I < N)
    Ticket[I] = atomicAdd(Counter, 1u);
}

/// Exercises the other integer atomics; R[0..7] are the results.
__global__ void integerAtomics(int *R, unsigned *U, unsigned long long *L) {
  int T = int(threadIdx.x);
  atomicMax(&R[0], T * 3 % 50);
  atomicMin(&R[1], 100 - T);
  atomicSub(&R[2], 2);
  atomicInc(&U[0], 9u); // wraps to 0 after 9
  atomicDec(&U[1], 100u);
  atomicOr(&U[2], 1u << (T % 32));
  atomicAdd(&L[0], 1ull << 33);
  // A lock-free increment through atomicCAS.
  int Old = R[3], Assumed;
  do {
    Assumed = Old;
    Old = atomicCAS(&R[3], Assumed, Assumed + 2);
  } while (Old != Assumed);
  if (T == 63)
    R[4] = atomicExch(&R[5], 77);
}

void check(const char *Name, bool Ok) {
  meshad::test::checker().close(Name, Ok, 1.0, 0.0);
}

void checkEnergy() {
  const int N = 100003, Block = 256, Grid = (N + Block - 1) / Block;
  double *Total;
  float *TotalF;
  cudaMalloc(&Total, sizeof(double));
  cudaMalloc(&TotalF, sizeof(float));
  cudaMemset(Total, 0, sizeof(double));
  cudaMemset(TotalF, 0, sizeof(float));
  MESHAD_LAUNCH(totalEnergy, Grid, Block)(N, Total, TotalF);
  double Got, Expected = 0;
  float GotF;
  float ExpectedF = 0; // small integers: exact in float
  for (int I = 0; I < N; ++I) {
    Expected += energyOf(I);
    ExpectedF += float(I % 5);
  }
  cudaMemcpy(&Got, Total, sizeof Got, cudaMemcpyDeviceToHost);
  cudaMemcpy(&GotF, TotalF, sizeof GotF, cudaMemcpyDeviceToHost);
  meshad::test::checker().close("double energy", Got, Expected, 0.0);
  meshad::test::checker().close("float energy", GotF, ExpectedF, 0.0);
  cudaFree(Total);
  cudaFree(TotalF);
}

void checkTickets() {
  const int N = 5000;
  unsigned *Counter, *Ticket;
  cudaMalloc(&Counter, sizeof(unsigned));
  cudaMalloc(&Ticket, N * sizeof(unsigned));
  cudaMemset(Counter, 0, sizeof(unsigned));
  MESHAD_LAUNCH(tickets, (N + 127) / 128, 128)(N, Counter, Ticket);
  std::vector<unsigned> H(N);
  cudaMemcpy(H.data(), Ticket, N * sizeof(unsigned), cudaMemcpyDeviceToHost);
  std::vector<int> Seen(N, 0);
  bool Ok = true;
  for (unsigned T : H)
    Ok = Ok && T < unsigned(N) && !Seen[T]++;
  check("old values are a permutation", Ok);
  cudaFree(Counter);
  cudaFree(Ticket);
}

void checkIntegerAtomics() {
  int R[6] = {-5, 1000, 0, 0, 0, 11};
  unsigned U[3] = {0, 0, 0};
  unsigned long long L = 0;
  int *DR;
  unsigned *DU;
  unsigned long long *DL;
  cudaMalloc(&DR, sizeof R);
  cudaMalloc(&DU, sizeof U);
  cudaMalloc(&DL, sizeof L);
  cudaMemcpy(DR, R, sizeof R, cudaMemcpyHostToDevice);
  cudaMemcpy(DU, U, sizeof U, cudaMemcpyHostToDevice);
  cudaMemcpy(DL, &L, sizeof L, cudaMemcpyHostToDevice);
  MESHAD_LAUNCH(integerAtomics, 1, 64)(DR, DU, DL);
  cudaMemcpy(R, DR, sizeof R, cudaMemcpyDeviceToHost);
  cudaMemcpy(U, DU, sizeof U, cudaMemcpyDeviceToHost);
  cudaMemcpy(&L, DL, sizeof L, cudaMemcpyDeviceToHost);
  // max of T*3%50 over T<64 is 49; min of 100-T is 37; 64 increments mod 10
  // give 4; atomicDec from 0 wraps to 100, then 63 decrements give 37.
  check("integer atomics", R[0] == 49 && R[1] == 37 && R[2] == -128 &&
                               R[3] == 128 && R[4] == 11 && R[5] == 77 &&
                               U[0] == 4 && U[1] == 37 && U[2] == 0xffffffffu &&
                               L == 64ull << 33);
  cudaFree(DR);
  cudaFree(DU);
  cudaFree(DL);
}

/// Two OS threads launch into the same total at the same time.
void checkParallelLaunches() {
  const int N = 20000;
  double *Total;
  float *TotalF;
  cudaMalloc(&Total, sizeof(double));
  cudaMalloc(&TotalF, sizeof(float));
  cudaMemset(Total, 0, sizeof(double));
  auto Work = [&] {
    for (int Rep = 0; Rep < 5; ++Rep)
      MESHAD_LAUNCH(totalEnergy, (N + 255) / 256, 256)(N, Total, TotalF);
  };
  std::thread A(Work), B(Work);
  A.join();
  B.join();
  double Got, Expected = 0;
  for (int I = 0; I < N; ++I)
    Expected += 10 * energyOf(I);
  cudaMemcpy(&Got, Total, sizeof Got, cudaMemcpyDeviceToHost);
  meshad::test::checker().close("parallel launches", Got, Expected, 0.0);
  cudaFree(Total);
  cudaFree(TotalF);
}

} // namespace

int main() {
  checkEnergy();
  checkTickets();
  checkIntegerAtomics();
  checkParallelLaunches();
  return meshad::test::summary();
}
