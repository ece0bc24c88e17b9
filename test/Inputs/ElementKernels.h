//===- test/Inputs/ElementKernels.h - Element kernels of tests -*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The element kernels that several tests differentiate (issue 11: the
/// element maps, the two-phase, gather and plain-slot-store strategies, the
/// cost model): one thread per element, its vertices read through one index
/// array, its energy atomicAdd-ed into E. Their derivatives are generated
/// where a test asks for them (the plugin places them in the test's main
/// file) and checked there, with the harness of ElementCheck.h.
///
/// \code
///   #include "ElementCheck.h"
///   #include "ElementKernels.h"
///   auto G = meshad::gradient(tets, "x, E", meshad::ElementStrategy::Gather);
/// \endcode
///
/// ownership-element-maps.cu checks remarks at lines of this file: add new
/// kernels at the end.
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_TEST_ELEMENTKERNELS_H
#define MESHAD_TEST_ELEMENTKERNELS_H

#include <cmath>

/// 3D springs with a rest length per element: a guard, the vertices in
/// locals, a loop over the components.
__global__ void springs(int n, const int *edges, const double *rest,
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

/// Triangles with 2D DOFs: an early return, loops over the local vertices.
__global__ void triangles2(int nf, const int *tris, const double *x,
                           double *E) {
  int f = blockIdx.x * blockDim.x + threadIdx.x;
  if (f >= nf)
    return;
  double cx = 0, cy = 0;
  for (int j = 0; j < 3; ++j) {
    int v = tris[3 * f + j];
    cx += x[2 * v];
    cy += x[2 * v + 1];
  }
  double s = 0;
  for (int j = 0; j < 3; ++j) {
    int v = tris[3 * f + j];
    double dx = x[2 * v] - cx / 3, dy = x[2 * v + 1] - cy / 3;
    s += dx * dx + dy * dy;
  }
  atomicAdd(E, s * s);
}

/// Triangles with 3D DOFs: the area of each (smoothed).
__global__ void triangles3(int nf, const int *tris, const double *x,
                           double *E) {
  int f = blockIdx.x * blockDim.x + threadIdx.x;
  if (f < nf) {
    int a = tris[3 * f], b = tris[3 * f + 1], c = tris[3 * f + 2];
    double u[3], w[3];
    for (int k = 0; k < 3; ++k) {
      u[k] = x[3 * b + k] - x[3 * a + k];
      w[k] = x[3 * c + k] - x[3 * a + k];
    }
    double n0 = u[1] * w[2] - u[2] * w[1], n1 = u[2] * w[0] - u[0] * w[2],
           n2 = u[0] * w[1] - u[1] * w[0];
    atomicAdd(E, sqrt(n0 * n0 + n1 * n1 + n2 * n2 + 0.01));
  }
}

/// Tets (arity 4): a function of the signed volume.
__global__ void tets(int nt, const int *tet, const double *x, double *E) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < nt) {
    int a = tet[4 * t], b = tet[4 * t + 1], c = tet[4 * t + 2],
        d = tet[4 * t + 3];
    double u[3], v[3], w[3];
    for (int k = 0; k < 3; ++k) {
      u[k] = x[3 * b + k] - x[3 * a + k];
      v[k] = x[3 * c + k] - x[3 * a + k];
      w[k] = x[3 * d + k] - x[3 * a + k];
    }
    double vol = u[0] * (v[1] * w[2] - v[2] * w[1]) -
                 u[1] * (v[0] * w[2] - v[2] * w[0]) +
                 u[2] * (v[0] * w[1] - v[1] * w[0]);
    atomicAdd(E, log(1 + vol * vol));
  }
}

/// 1D springs in a grid-stride loop.
__global__ void strideSprings(int n, const int *edges, const double *x,
                              double *E) {
  for (int e = blockIdx.x * blockDim.x + threadIdx.x; e < n;
       e += blockDim.x * gridDim.x) {
    int a = edges[2 * e], b = edges[2 * e + 1];
    double d = x[a] - x[b];
    atomicAdd(E, d * d * d * d);
  }
}

#endif // MESHAD_TEST_ELEMENTKERNELS_H
