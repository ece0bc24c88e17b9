//===- SolveReferencePrelude.h - Context of the solve/ reference ---*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
//
// What the examples of docs/reference/solve.md use without declaring: a
// problem, device arrays and their sizes, a CSR matrix, a local energy and
// the functions meshad would generate for it, an element kernel and its
// Hessian handle. Declarations only: test/solve/solve-reference.test
// compiles the examples (test/Inputs/doc_snippets.py) without running or
// linking them, and without the plugin, so no derivative is generated there.
// The handle that the plugin would complete `meshad::hessian(springs, "x")`
// with comes from an overload of meshad::hessian for `springs` below.
//
//===----------------------------------------------------------------------===//

#ifndef MESHAD_TEST_SOLVEREFERENCEPRELUDE_H
#define MESHAD_TEST_SOLVEREFERENCEPRELUDE_H

#include <meshad/Differentiator.h>
#include <meshad/ElementHessian.h>
#include <meshad/runtime/solve/AssembledTerm.h>
#include <meshad/runtime/solve/ElementKernelTerm.h>
#include <meshad/runtime/solve/Injectivity.h>
#include <meshad/runtime/solve/Minimize.h>

#include <cassert>
#include <cstdio>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

// The problem, the DOFs and other device vectors of N values.
extern meshad::runtime::solve::Problem<double> &P;
extern long N;
extern double *dX, *dG, *dV, *dHv, *dB;
// A mesh: edges (2 indices each), triangles (3 each), per-edge parameters.
extern int NumVertices, NumEdges, NumTriangles;
extern int *dEdges, *dTris;
extern double *dParams;
// A CSR matrix of N rows.
extern meshad::runtime::solve::CsrView<double> A;

// A local spring energy and what meshad generates for it.
__host__ __device__ double spring(const double *x, const double *p);
__host__ __device__ void spring_grad_0(const double *x, const double *p,
                                       double *_d_x);
__host__ __device__ void spring_hessian_0(const double *x, const double *p,
                                          double *H);
struct Spring {
  static constexpr int Arity = 2, Dofs = 3;
  __device__ static double energy(const double *x, const double *p) {
    return spring(x, p);
  }
  __device__ static void gradient(const double *x, const double *p,
                                  double *g) {
    spring_grad_0(x, p, g);
  }
  __device__ static void hessian(const double *x, const double *p,
                                 double *H) {
    spring_hessian_0(x, p, H);
  }
};

// An element kernel, its generated Hessian kernel and the handle the plugin
// completes `meshad::hessian(springs, "x")` with.
__global__ void springs(int n, const int *edges, const double *x,
                        const double *P, double *E);
__global__ void springs_hessian(int n, const int *edges, const double *x,
                                const double *P, double *E,
                                meshad::ElementAssembly<double> Assembly);
using SpringsHessian =
    meshad::ElementHessian<decltype(&springs_hessian), 1, 2, 3>;
namespace meshad {
inline SpringsHessian hessian(decltype(springs) &, const char *) {
  return SpringsHessian(
      springs_hessian,
      [](int n, const int *, const double *, const double *, double *,
         meshad::ElementAssembly<double>) -> long long { return n; },
      "springs_hessian", "");
}
} // namespace meshad

#endif // MESHAD_TEST_SOLVEREFERENCEPRELUDE_H
