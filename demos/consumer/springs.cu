// The gradient of a mass-spring energy kernel, as a project of one's own
// writes it (demos/consumer/CMakeLists.txt builds it against an installed
// meshad). Checked against central differences; prints PASS or FAIL.
#include <meshad/Differentiator.h>
#include <meshad/cpu/Portable.h> // MESHAD_LAUNCH: <<<>>> here and on the CPU

#include <cmath>
#include <cstdio>
#include <vector>

__global__ void springEnergy(int n, const int *edges, const double *rest,
                             const double *x, double *E) {
  int e = blockIdx.x * blockDim.x + threadIdx.x;
  if (e < n) {
    int a = edges[2 * e], b = edges[2 * e + 1];
    double l2 = 0;
    for (int k = 0; k < 3; ++k) {
      double d = x[3 * a + k] - x[3 * b + k];
      l2 += d * d;
    }
    double s = sqrt(l2) - rest[e];
    atomicAdd(E, 0.5 * s * s);
  }
}

template <class T> static T *toDevice(const std::vector<T> &Host) {
  T *Dev = nullptr;
  cudaMalloc(reinterpret_cast<void **>(&Dev), Host.size() * sizeof(T));
  cudaMemcpy(Dev, Host.data(), Host.size() * sizeof(T),
             cudaMemcpyHostToDevice);
  return Dev;
}

template <class T> static std::vector<T> toHost(const T *Dev, size_t N) {
  std::vector<T> Host(N);
  cudaMemcpy(Host.data(), Dev, N * sizeof(T), cudaMemcpyDeviceToHost);
  return Host;
}

/// E(x) on the device, for the finite differences.
static double energy(int N, const int *Edges, const double *Rest,
                     const std::vector<double> &X) {
  double *DX = toDevice(X), *DE = toDevice(std::vector<double>{0.0});
  MESHAD_LAUNCH(springEnergy, (N + 127) / 128, 128)(N, Edges, Rest, DX, DE);
  double E = toHost(DE, 1)[0];
  cudaFree(DX);
  cudaFree(DE);
  return E;
}

int main() {
  // A ring of 8 vertices with a spring to each neighbour and across.
  const int V = 8;
  std::vector<int> Edges;
  for (int I = 0; I < V; ++I)
    for (int Step : {1, 4})
      if (Step == 1 || I < V / 2) {
        Edges.push_back(I);
        Edges.push_back((I + Step) % V);
      }
  const int N = static_cast<int>(Edges.size() / 2);
  std::vector<double> X(3 * V), Rest(N);
  unsigned Seed = 12345;
  auto Random = [&Seed] {
    Seed = Seed * 1103515245u + 12345u;
    return (Seed >> 8 & 0xffff) / 65536.0;
  };
  for (double &Xi : X)
    Xi = 2 * Random() - 1;
  for (double &R : Rest)
    R = 0.5 + Random();

  int *DEdges = toDevice(Edges);
  double *DRest = toDevice(Rest), *DX = toDevice(X);
  double *DE = toDevice(std::vector<double>{0.0});
  // Seeds: dE holds dL/dE = 1; dx is accumulated into, so it starts at 0.
  double *DdX = toDevice(std::vector<double>(3 * V, 0.0));
  double *DdE = toDevice(std::vector<double>{1.0});

  auto Grad = meshad::gradient(springEnergy, "x, E");
  Grad.execute_kernel(dim3((N + 127) / 128), dim3(128), N, DEdges, DRest, DX,
                      DE, DdX, DdE);
  std::vector<double> G = toHost(DdX, 3 * V);

  double MaxError = 0;
  for (int I = 0; I < 3 * V; ++I) {
    const double H = 1e-6;
    std::vector<double> Plus = X, Minus = X;
    Plus[I] += H;
    Minus[I] -= H;
    double Fd = (energy(N, DEdges, DRest, Plus) -
                 energy(N, DEdges, DRest, Minus)) / (2 * H);
    MaxError = std::fmax(MaxError, std::fabs(Fd - G[I]) /
                                       std::fmax(1.0, std::fabs(Fd)));
  }
  std::printf("%s: %d springs, max relative error %.2e\n", Grad.getName(), N,
              MaxError);
  bool Pass = MaxError < 1e-6;
  std::printf("%s\n", Pass ? "PASS" : "FAIL");
  return Pass ? 0 : 1;
}
