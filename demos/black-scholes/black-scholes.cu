//===- demos/black-scholes/black-scholes.cu - Greeks by reverse mode ------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
//
// European call and put prices of a batch of options on the GPU (one thread
// per option), and their Greeks from one reverse-mode gradient each:
// delta = dV/dS, vega = dV/dsigma, rho = dV/dr, theta = -dV/dT (T is the
// time to maturity). Compared with the closed-form Greeks.
//
// CUDA:  clang++ -x cuda --cuda-gpu-arch=sm_90 -fplugin=libmeshad.so
//          -I<meshad>/include -I<meshad>/test/Inputs black-scholes.cu -lcudart
// CPU:   clang++ -x c++ -std=c++20 -include meshad/cpu/CudaOnCpu.h -pthread
//          -fplugin=libmeshad.so -I<meshad>/include -I<meshad>/test/Inputs
//          black-scholes.cu
//
//===----------------------------------------------------------------------===//

#include "KernelCheck.h"
#include <cmath>
#include <meshad/Differentiator.h>

/// The standard normal CDF.
__host__ __device__ inline double normCdf(double x) {
  return 0.5 * erfc(-x * 0.7071067811865476);
}

/// Call and put prices of option i: spot S, strike K, volatility sigma, rate
/// r, time to maturity T.
__global__ void blackScholes(int n, const double *S, const double *K,
                             const double *sigma, const double *r,
                             const double *T, double *call, double *put) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    double sqrtT = sqrt(T[i]);
    double d1 = (log(S[i] / K[i]) + (r[i] + 0.5 * sigma[i] * sigma[i]) * T[i]) /
                (sigma[i] * sqrtT);
    double d2 = d1 - sigma[i] * sqrtT;
    double discount = K[i] * exp(-r[i] * T[i]);
    call[i] = S[i] * normCdf(d1) - discount * normCdf(d2);
    put[i] = discount * normCdf(-d2) - S[i] * normCdf(-d1);
  }
}

namespace mt = meshad::test;

namespace {

/// Closed-form Greeks of one option.
struct Greeks {
  double Delta, Vega, Rho, Theta;
};

Greeks closedForm(bool Call, double S, double K, double Sigma, double R,
                  double T) {
  double D1 = (std::log(S / K) + (R + 0.5 * Sigma * Sigma) * T) /
              (Sigma * std::sqrt(T));
  double D2 = D1 - Sigma * std::sqrt(T);
  double Pdf = std::exp(-0.5 * D1 * D1) / std::sqrt(2 * M_PI);
  double Disc = K * std::exp(-R * T);
  auto N = [](double X) { return 0.5 * std::erfc(-X / std::sqrt(2.0)); };
  double Decay = -S * Pdf * Sigma / (2 * std::sqrt(T));
  if (Call)
    return {N(D1), S * Pdf * std::sqrt(T), T * Disc * N(D2),
            Decay - R * Disc * N(D2)};
  return {N(D1) - 1, S * Pdf * std::sqrt(T), -T * Disc * N(-D2),
          Decay + R * Disc * N(-D2)};
}

} // namespace

int main() {
  const int N = 32;
  const dim3 Grid(2), Block(16);
  mt::RandomInputs Rng;
  mt::DeviceArray<double> S(N), K(N), Sigma(N), R(N), T(N), Call(N), Put(N);
  // Near the money, moderate volatility and maturities: every Greek is far
  // from zero.
  Rng.fill(S.host(), N, 90, 110);
  for (int I = 0; I < N; ++I)
    K[I] = 100;
  Rng.fill(Sigma.host(), N, 0.25, 0.45);
  Rng.fill(R.host(), N, 0.01, 0.03);
  Rng.fill(T.host(), N, 0.25, 1.0);
  for (auto *A : {&S, &K, &Sigma, &R, &T})
    A->upload();

  auto Grad = meshad::gradient(blackScholes, "S, sigma, r, T, call, put");
  mt::DeviceArray<double> DS(N), DSigma(N), DR(N), DT(N), DCall(N), DPut(N);
  std::printf("%-4s %-6s %12s %12s %12s %12s\n", "opt", "kind", "delta",
              "vega", "rho", "theta");
  for (int Kind = 0; Kind < 2; ++Kind) {
    bool IsCall = Kind == 0;
    for (auto *A : {&DS, &DSigma, &DR, &DT})
      A->zero();
    for (int I = 0; I < N; ++I) { // seed: the call (or the put) price
      DCall[I] = IsCall ? 1 : 0;
      DPut[I] = IsCall ? 0 : 1;
    }
    DCall.upload();
    DPut.upload();
    Grad.execute_kernel(Grid, Block, N, S.device(), K.device(),
                        Sigma.device(), R.device(), T.device(), Call.device(),
                        Put.device(), DS.device(), DSigma.device(), DR.device(),
                        DT.device(), DCall.device(), DPut.device());
    mt::checkLaunch("blackScholes gradient");
    for (auto *A : {&DS, &DSigma, &DR, &DT})
      A->download();
    const char *Name = IsCall ? "call" : "put";
    for (int I = 0; I < N; ++I) {
      Greeks G = closedForm(IsCall, S[I], K[I], Sigma[I], R[I], T[I]);
      double Theta = -DT[I];
      std::string Tag = std::string(Name) + " " + std::to_string(I);
      MESHAD_CHECK_CLOSE(Tag + " delta", DS[I], G.Delta);
      MESHAD_CHECK_CLOSE(Tag + " vega", DSigma[I], G.Vega);
      MESHAD_CHECK_CLOSE(Tag + " rho", DR[I], G.Rho);
      MESHAD_CHECK_CLOSE(Tag + " theta", Theta, G.Theta);
      if (I < 3)
        std::printf("%-4d %-6s %12.6f %12.6f %12.6f %12.6f  (closed form "
                    "%.6f %.6f %.6f %.6f)\n",
                    I, Name, DS[I], DSigma[I], DR[I], Theta, G.Delta, G.Vega,
                    G.Rho, G.Theta);
    }
  }
  int Rc = mt::summary();
  std::puts(Rc == 0 ? "black-scholes: OK" : "black-scholes: FAILED");
  return Rc;
}
