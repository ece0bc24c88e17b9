// Conjugate gradients with their scalars on the device
// (CgOptions::DeviceScalars, meshad/runtime/solve/CgKernels.h) against the
// same solves with host dot products: bitwise equal iterates on the CPU
// emulation (close, not bitwise, on an H100), the same iteration counts and
// stop reasons (convergence with Jacobi and
// block-Jacobi in double and float, the iteration limit between two checks,
// negative curvature at once and later, matrix-free CG), and the solution
// against a dense solve in double. No derivatives are generated here; the
// solvers that use CG (Newton) are checked against finite differences in
// solve-quadratic.cu and solve-kernel-term.cu. On the CPU emulation; also
// on a GPU (scripts/gpu/tests.txt).
//
// RUN: %clangxx %cpu_cuda_flags -I%test_inputs %s -o %t
// RUN: %t | FileCheck %s
#include "NumericCheck.h"
#include <algorithm>
#include <cmath>
#include <cstring>
#include <meshad/runtime/solve/LinearSolvers.h>

using namespace meshad::runtime::solve;
namespace mt = meshad::test;

/// A symmetric matrix on an NX x NY grid, 2 DOFs per vertex: springs with
/// random 2x2 stiffness between grid neighbours, each vertex's diagonal
/// block shifted by Shift (positive definite for Shift > 0), in CSR.
struct GridMatrix {
  static constexpr int NX = 9, NY = 7, NV = NX * NY, N = 2 * NV;
  std::vector<double> Dense;
  std::vector<int> Offsets, Columns;
  std::vector<double> Values;
  GridMatrix(mt::RandomInputs &Rng, double Shift) : Dense(N * N, 0.0) {
    auto Link = [&](int A, int B) {
      double K[4] = {Rng.uniform(0.5, 2), Rng.uniform(-0.3, 0.3), 0,
                     Rng.uniform(0.5, 2)};
      K[2] = K[1];
      for (int I = 0; I < 2; ++I)
        for (int J = 0; J < 2; ++J) {
          Dense[(2 * A + I) * N + 2 * A + J] += K[2 * I + J];
          Dense[(2 * B + I) * N + 2 * B + J] += K[2 * I + J];
          Dense[(2 * A + I) * N + 2 * B + J] -= K[2 * I + J];
          Dense[(2 * B + I) * N + 2 * A + J] -= K[2 * I + J];
        }
    };
    for (int Y = 0; Y < NY; ++Y)
      for (int X = 0; X < NX; ++X) {
        int V = Y * NX + X;
        if (X + 1 < NX)
          Link(V, V + 1);
        if (Y + 1 < NY)
          Link(V, V + NX);
      }
    for (int I = 0; I < N; ++I)
      Dense[I * N + I] += Shift * Rng.uniform(0.5, 1.5);
    Offsets.push_back(0);
    for (int I = 0; I < N; ++I) {
      for (int J = 0; J < N; ++J)
        if (Dense[I * N + J] != 0) {
          Columns.push_back(J);
          Values.push_back(Dense[I * N + J]);
        }
      Offsets.push_back(static_cast<int>(Columns.size()));
    }
  }
  /// A x = b by Gaussian elimination with partial pivoting, in double.
  std::vector<double> denseSolve(std::vector<double> B) const {
    std::vector<double> A = Dense;
    for (int C = 0; C < N; ++C) {
      int Pivot = C;
      for (int R = C + 1; R < N; ++R)
        if (std::fabs(A[R * N + C]) > std::fabs(A[Pivot * N + C]))
          Pivot = R;
      for (int J = 0; J < N; ++J)
        std::swap(A[C * N + J], A[Pivot * N + J]);
      std::swap(B[C], B[Pivot]);
      for (int R = C + 1; R < N; ++R) {
        double F = A[R * N + C] / A[C * N + C];
        for (int J = C; J < N; ++J)
          A[R * N + J] -= F * A[C * N + J];
        B[R] -= F * B[C];
      }
    }
    for (int R = N - 1; R >= 0; --R) {
      for (int J = R + 1; J < N; ++J)
        B[R] -= A[R * N + J] * B[J];
      B[R] /= A[R * N + R];
    }
    return B;
  }
};

/// The matrix on the device in T.
template <class T> struct DeviceCsr {
  DeviceBuffer<int> Offsets, Columns;
  DeviceBuffer<T> Values;
  explicit DeviceCsr(const GridMatrix &M) {
    Offsets.upload(M.Offsets);
    Columns.upload(M.Columns);
    Values.upload(std::vector<T>(M.Values.begin(), M.Values.end()));
  }
  CsrView<T> view() const {
    CsrView<T> A{GridMatrix::N, Offsets.data(), Columns.data(), Values.data()};
    A.BlockSize = 2;
    return A;
  }
};

struct Outcome {
  CgResult Res;
  std::vector<double> X;
};

/// pcg (or, MatrixFree, cg through the SpMV as an operator) from X = 0.
template <class T>
static Outcome run(const DeviceCsr<T> &A, const std::vector<double> &B,
                   CgOptions Opt, bool MatrixFree) {
  DeviceBuffer<T> DB, DX;
  DB.upload(std::vector<T>(B.begin(), B.end()));
  DX.upload(std::vector<T>(B.size(), T(0)));
  Outcome O;
  if (MatrixFree) {
    SpmvPlan<T> Plan;
    auto Apply = [&](const T *V, T *AV) { Plan(A.view(), V, AV); };
    O.Res = cg(GridMatrix::N, Apply, static_cast<const T *>(nullptr),
               static_cast<const T *>(DB.data()), DX.data(), Opt);
  } else {
    O.Res = pcg(A.view(), static_cast<const T *>(DB.data()), DX.data(), Opt);
  }
  std::vector<T> X = DX.download();
  O.X.assign(X.begin(), X.end());
  return O;
}

/// The same solve with host dots and with device scalars: bitwise equal.
template <class T>
static Outcome compare(const std::string &Name, const DeviceCsr<T> &A,
                       const std::vector<double> &B, CgOptions Opt,
                       bool MatrixFree = false) {
  Opt.FusedKernels = false; // bitwise: the unfused kernels
  Opt.DeviceScalars = false;
  Outcome Host = run(A, B, Opt, MatrixFree);
  Opt.DeviceScalars = true;
  Outcome Device = run(A, B, Opt, MatrixFree);
  std::printf("%s: %d iterations, relative residual %.3e, converged %d, "
              "negative curvature %d\n",
              Name.c_str(), Device.Res.Iterations, Device.Res.RelativeResidual,
              Device.Res.Converged, Device.Res.NegativeCurvature);
  MESHAD_CHECK_CLOSE_TOL((Name + ": iterations").c_str(),
                         double(Device.Res.Iterations),
                         double(Host.Res.Iterations), 0);
#if defined(MESHAD_CPU_CUDA)
  bool Same =
      std::memcmp(Host.X.data(), Device.X.data(), Host.X.size() * 8) == 0;
  MESHAD_CHECK_CLOSE((Name + ": iterates bitwise equal").c_str(), double(Same),
                     1.0);
  MESHAD_CHECK_CLOSE_TOL((Name + ": relative residual").c_str(),
                         Device.Res.RelativeResidual,
                         Host.Res.RelativeResidual, 0);
#else
  // On an H100 the device scalars are not bitwise equal to the host's
  // (measured 2026-11-25: iterates and residuals differ in the last bits;
  // issue 14). Checked here: the same iterations and stop reason, and
  // iterates equal to the solve's own accuracy.
  double Diff = 0, Norm = 0;
  for (size_t I = 0; I < Host.X.size(); ++I) {
    Diff = std::max(Diff, std::fabs(Host.X[I] - Device.X[I]));
    Norm = std::max(Norm, std::fabs(Host.X[I]));
  }
  double Tol = std::max(Host.Res.RelativeResidual, 1e-12) * 1e3;
  std::printf("%s: iterates differ by %.3g (relative), allowed %.3g\n",
              Name.c_str(), Diff / Norm, Tol);
  MESHAD_CHECK_CLOSE((Name + ": iterates agree").c_str(),
                     double(Diff <= Tol * Norm), 1.0);
#endif
  MESHAD_CHECK_CLOSE_TOL(
      (Name + ": stop reason").c_str(),
      double(Device.Res.Converged + 2 * Device.Res.NegativeCurvature),
      double(Host.Res.Converged + 2 * Host.Res.NegativeCurvature), 0);
  return Device;
}

/// pcg's fused iteration (CgOptions::FusedKernels: three launches, the dot
/// products' terms added in another order) against the host loop: the same
/// stop reason, the iteration count within one.
template <class T>
static Outcome compareFused(const std::string &Name, const DeviceCsr<T> &A,
                            const std::vector<double> &B, CgOptions Opt) {
  Opt.DeviceScalars = false;
  Outcome Host = run(A, B, Opt, false);
  Opt.DeviceScalars = Opt.FusedKernels = true;
  Outcome Fused = run(A, B, Opt, false);
  std::printf("%s: %d iterations (host loop %d), relative residual %.3e, "
              "converged %d, negative curvature %d\n",
              Name.c_str(), Fused.Res.Iterations, Host.Res.Iterations,
              Fused.Res.RelativeResidual, Fused.Res.Converged,
              Fused.Res.NegativeCurvature);
  MESHAD_CHECK_CLOSE_TOL((Name + ": iterations within one").c_str(),
                         double(std::abs(Fused.Res.Iterations -
                                         Host.Res.Iterations) <= 1),
                         1.0, 0);
  MESHAD_CHECK_CLOSE_TOL(
      (Name + ": stop reason").c_str(),
      double(Fused.Res.Converged + 2 * Fused.Res.NegativeCurvature),
      double(Host.Res.Converged + 2 * Host.Res.NegativeCurvature), 0);
  return Fused;
}

/// max |X - Ref| / max |Ref| against a bound.
static void checkSolution(const std::string &Name, const std::vector<double> &X,
                          const std::vector<double> &Ref, double Bound) {
  double Diff = 0, Scale = 0;
  for (size_t I = 0; I < Ref.size(); ++I) {
    Diff = std::max(Diff, std::fabs(X[I] - Ref[I]));
    Scale = std::max(Scale, std::fabs(Ref[I]));
  }
  MESHAD_CHECK_CLOSE_TOL(Name.c_str(), 1 + Diff / Scale, 1.0, Bound);
}

int main() {
  mt::RandomInputs Rng;
  GridMatrix Spd(Rng, 0.05), Indefinite(Rng, -0.6);
  std::vector<double> B(GridMatrix::N);
  Rng.fill(B.data(), GridMatrix::N, -1, 1);
  std::vector<double> XStar = Spd.denseSolve(B);
  DeviceCsr<double> A(Spd), AI(Indefinite);
  DeviceCsr<float> AF(Spd);

  CgOptions Block{1e-12, 1000};
  Outcome O = compare("block-Jacobi", A, B, Block);
  // |x - x*| <= cond(A) |r| / |b|: 1e-12 times a condition number below 1e4.
  checkSolution("block-Jacobi = dense solve", O.X, XStar, 1e-8);
  CgOptions Jacobi = Block;
  Jacobi.Precondition = Preconditioner::Jacobi;
  Jacobi.CheckEvery = 1;
  O = compare("Jacobi, a check per iteration", A, B, Jacobi);
  checkSolution("Jacobi = dense solve", O.X, XStar, 1e-8);
  O = compare("matrix-free", A, B, CgOptions{1e-12, 1000}, true);
  checkSolution("matrix-free = dense solve", O.X, XStar, 1e-8);
  // Float: the same float iterates in both modes; to 1e-5 relative
  // residual, within cond * 1e-5 of x*.
  O = compare("float block-Jacobi", AF, B, CgOptions{1e-5, 1000});
  checkSolution("float = dense solve", O.X, XStar, 1e-2);
  // The limit of 5 iterations falls between two checks (every 3).
  CgOptions Few{1e-12, 5};
  Few.CheckEvery = 3;
  O = compare("iteration limit", A, B, Few);
  MESHAD_CHECK_CLOSE_TOL("iteration limit: 5", double(O.Res.Iterations), 5, 0);
  // The fused iteration: block-Jacobi and Jacobi in double, float, the
  // limit between two checks, negative curvature (Jacobi on the indefinite
  // matrix).
  O = compareFused("fused block-Jacobi", A, B, Block);
  checkSolution("fused block-Jacobi = dense solve", O.X, XStar, 1e-8);
  O = compareFused("fused Jacobi", A, B, Jacobi);
  checkSolution("fused Jacobi = dense solve", O.X, XStar, 1e-8);
  O = compareFused("fused float", AF, B, CgOptions{1e-5, 1000});
  checkSolution("fused float = dense solve", O.X, XStar, 1e-2);
  O = compareFused("fused iteration limit", A, B, Few);
  MESHAD_CHECK_CLOSE_TOL("fused iteration limit: 5", double(O.Res.Iterations),
                         5, 0);
  CgOptions IndefiniteJacobi{1e-12, 1000, Preconditioner::Jacobi};
  O = compareFused("fused indefinite", AI, B, IndefiniteJacobi);
  MESHAD_CHECK_CLOSE("fused indefinite: negative curvature met",
                     double(O.Res.NegativeCurvature), 1.0);
  // Indefinite: without a preconditioner CG meets p . A p <= 0 (at once or
  // later; at once, X is b).
  O = compare("indefinite", AI, B, CgOptions{1e-12, 1000}, true);
  MESHAD_CHECK_CLOSE("indefinite: negative curvature met",
                     double(O.Res.NegativeCurvature), 1.0);
  return mt::summary();
}
// CHECK-NOT: FAIL
// CHECK: block-Jacobi: {{[0-9]+}} iterations
// CHECK: fused block-Jacobi: {{[0-9]+}} iterations (host loop {{[0-9]+}}), relative residual {{.*}}, converged 1
// CHECK: fused indefinite: {{[0-9]+}} iterations (host loop {{[0-9]+}}), relative residual {{.*}}, converged 0, negative curvature 1
// CHECK: indefinite: {{[0-9]+}} iterations, relative residual {{.*}}, converged 0, negative curvature 1
// CHECK: numeric checks: {{[1-9][0-9]*}} passed, 0 failed
