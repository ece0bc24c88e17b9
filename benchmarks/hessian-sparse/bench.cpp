//===- benchmarks/hessian-sparse/bench.cpp - Sparse loop Hessians ---------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
//
// Times meshad::hessian(f, "x", meshad::Sparse) (CSR, O(n)) for n = 1e3 ..
// 1e7 on the host, against the dense forward-over-reverse Hessian of a
// run-time n (n meshad::hvp calls along the unit vectors, an n x n matrix:
// O(n^2) time and memory, run only up to --dense-max), for three loops: a
// chain of squared differences (3 entries per row), a 3-point stencil
// with a cosine coupling (5 per row), and springs over an edge list of
// n / 3 vertices in 3D (each vertex joined to the next two; 15 per row). Checks the sparse matrix against the
// dense one where both run (max relative difference). Prints one table
// row per (function, n): time per call (median of the repetitions), time
// per row, nonzeros.
//
//   clang++ -std=c++17 -O2 -fplugin=build/lib/libmeshad.so -Iinclude \
//     benchmarks/hessian-sparse/bench.cpp -o /tmp/sparse-bench
//   /tmp/sparse-bench                 # n = 1e3 .. 1e7, dense up to 4000
//   /tmp/sparse-bench --smoke         # n = 1e3, 1e4 (CI)
//   /tmp/sparse-bench --max-n 1000000 # n = 1e3 .. 1e6
//   /tmp/sparse-bench --only chain    # one loop
//
//===----------------------------------------------------------------------===//

#include <meshad/Differentiator.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

double chain(const double *x, int n) {
  double loss = 0;
  for (int i = 1; i < n; ++i)
    loss += (x[i - 1] - x[i]) * (x[i - 1] - x[i]);
  return loss;
}

double bending(const double *x, int n, double k) {
  double e = 0;
  for (int i = 1; i < n - 1; ++i) {
    double lap = x[i - 1] - 2.0 * x[i] + x[i + 1];
    e += k * lap * lap + cos(x[i] * x[i + 1]);
  }
  return e;
}

// Springs over an edge list (3 DOFs per vertex): the pattern comes from the
// index array's values (x[3*e[2*i] + c]).
double springs(const double *x, const int *e, int m) {
  double E = 0;
  for (int i = 0; i < m; ++i) {
    int a = e[2 * i], b = e[2 * i + 1];
    double dx = x[3 * a] - x[3 * b];
    double dy = x[3 * a + 1] - x[3 * b + 1];
    double dz = x[3 * a + 2] - x[3 * b + 2];
    double len = sqrt(dx * dx + dy * dy + dz * dz);
    E += (len - 1.0) * (len - 1.0);
  }
  return E;
}

namespace {

/// The edges (v, v + 1) and (v, v + 2) of N / 3 vertices, for springs.
const std::vector<int> &edgesFor(int N) {
  static std::vector<int> E;
  static int For = -1;
  if (For != N) {
    int V = N / 3;
    E.clear();
    for (int A = 0; A < V; ++A)
      for (int D = 1; D <= 2; ++D)
        if (A + D < V)
          E.insert(E.end(), {A, A + D});
    For = N;
  }
  return E;
}

/// The median of \p Reps runs of \p F, in seconds.
template <class F> double timeIt(int Reps, F &&Fn) {
  std::vector<double> T;
  for (int R = 0; R < Reps; ++R) {
    auto A = std::chrono::steady_clock::now();
    Fn();
    auto B = std::chrono::steady_clock::now();
    T.push_back(std::chrono::duration<double>(B - A).count());
  }
  std::sort(T.begin(), T.end());
  return T[T.size() / 2];
}

/// The dense Hessian by n HVPs: column j = H e_j.
template <class Hvp> void denseByHvps(int N, std::vector<double> &H, Hvp &&Hv) {
  std::vector<double> V(N, 0.0), Col(N);
  H.assign(static_cast<size_t>(N) * N, 0.0);
  for (int J = 0; J < N; ++J) {
    V[J] = 1.0;
    std::fill(Col.begin(), Col.end(), 0.0);
    Hv(V.data(), Col.data());
    V[J] = 0.0;
    for (int I = 0; I < N; ++I)
      H[static_cast<size_t>(I) * N + J] = Col[I];
  }
}

/// max |sparse - dense| / max |dense| over every entry.
double compare(const meshad::SparseMatrix<double> &S,
               const std::vector<double> &D, int N) {
  std::vector<double> E(D);
  for (int R = 0; R < S.Rows; ++R)
    for (int K = S.RowOffsets[R]; K < S.RowOffsets[R + 1]; ++K)
      E[static_cast<size_t>(R) * N + S.Columns[K]] -= S.Values[K];
  double Diff = 0, Scale = 0;
  for (size_t I = 0; I < D.size(); ++I) {
    Diff = std::max(Diff, std::fabs(E[I]));
    Scale = std::max(Scale, std::fabs(D[I]));
  }
  return Diff / Scale;
}

struct Options {
  std::vector<int> Sizes{1000, 2000, 4000, 10000, 100000, 1000000, 10000000};
  int DenseMax = 4000;
  const char *Only = nullptr; ///< One loop's name, or all.
};

template <class SparseFnT, class HvpFnT>
void run(const char *Name, const Options &O, SparseFnT &&SparseFn,
         HvpFnT &&HvpFn) {
  if (O.Only && std::strcmp(O.Only, Name))
    return;
  std::mt19937_64 Gen(42);
  std::uniform_real_distribution<double> U(-1.0, 1.0);
  for (int N : O.Sizes) {
    std::vector<double> X(N);
    for (double &V : X)
      V = U(Gen);
    meshad::SparseMatrix<double> H;
    // The first call builds the pattern: timed alone, then the reuse.
    double First = timeIt(1, [&] { SparseFn(X.data(), N, &H); });
    int Reps = N <= 100000 ? 21 : 5;
    double SparseT = timeIt(Reps, [&] { SparseFn(X.data(), N, &H); });
    std::printf("| %-8s | %9d | %10.3g | %10.3g | %8.2f | %9d |", Name, N,
                First, SparseT, 1e9 * SparseT / N, H.nonzeros());
    if (N <= O.DenseMax) {
      std::vector<double> D;
      double Dense = timeIt(1, [&] {
        denseByHvps(N, D, [&](const double *V, double *Out) {
          HvpFn(X.data(), N, V, Out);
        });
      });
      std::printf(" %10.3g | %8.1e |\n", Dense, compare(H, D, N));
    } else {
      std::printf(" %10s | %8s |\n", "-", "-");
    }
    std::fflush(stdout);
  }
}

} // namespace

int main(int Argc, char **Argv) {
  Options O;
  for (int I = 1; I < Argc; ++I)
    if (!std::strcmp(Argv[I], "--smoke")) {
      O.Sizes = {1000, 10000};
      O.DenseMax = 1000;
    } else if (!std::strcmp(Argv[I], "--max-n") && I + 1 < Argc) {
      int Max = std::atoi(Argv[++I]);
      O.Sizes.erase(std::remove_if(O.Sizes.begin(), O.Sizes.end(),
                                   [&](int N) { return N > Max; }),
                    O.Sizes.end());
    } else if (!std::strcmp(Argv[I], "--only") && I + 1 < Argc) {
      O.Only = Argv[++I];
    }
  auto sChain = meshad::hessian(chain, "x", meshad::Sparse);
  auto hChain = meshad::hvp(chain, "x");
  auto sBend = meshad::hessian(bending, "x", meshad::Sparse);
  auto hBend = meshad::hvp(bending, "x");
  auto sSpr = meshad::hessian(springs, "x", meshad::Sparse);
  auto hSpr = meshad::hvp(springs, "x");
  const double K = 1.5;
  std::printf("| loop     |         n | first call (s) | sparse (s) | ns/row "
              "| nonzeros | dense, n HVPs (s) | max rel diff |\n"
              "|---|---:|---:|---:|---:|---:|---:|---:|\n");
  run("chain", O,
      [&](const double *X, int N, meshad::SparseMatrix<double> *H) {
        sChain.execute(X, N, H);
      },
      [&](const double *X, int N, const double *V, double *Out) {
        hChain.execute(X, N, V, Out);
      });
  run("bending", O,
      [&](const double *X, int N, meshad::SparseMatrix<double> *H) {
        sBend.execute(X, N, K, H);
      },
      [&](const double *X, int N, const double *V, double *Out) {
        hBend.execute(X, N, K, V, Out);
      });
  run("springs", O,
      [&](const double *X, int N, meshad::SparseMatrix<double> *H) {
        const std::vector<int> &E = edgesFor(N);
        sSpr.execute(X, E.data(), int(E.size() / 2), H);
      },
      [&](const double *X, int N, const double *V, double *Out) {
        const std::vector<int> &E = edgesFor(N);
        hSpr.execute(X, E.data(), int(E.size() / 2), V, Out);
      });
  return 0;
}
