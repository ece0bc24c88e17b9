// The caller's incidences for a gradient with several slot buffers (issue
// 11, meshad::ElementGradientSlots::use_incidence): positions x and
// velocities u read through one index array (use_incidence(inc), for every
// array), and a cloth kernel with springs (edges, per-vertex weights w) and
// triangles (tris) in one launch (use_incidence(indices, inc), per index
// array). Each adjoint: against central differences, bitwise equal across
// two runs, and close to the atomic gradient. A stale borrowed incidence
// (built for fewer triangles than the launch has) stops with a message;
// use_incidence(inc) on a kernel of two index arrays is a compile error.
// The kernels and inputs are those of test/Inputs/ElementArrays.h.
//
// RUN: %clangxx %cpu_cuda_flags -fplugin=%meshad_plugin -I%test_inputs %s -o %t
// RUN: %t | FileCheck %s --check-prefix=NUM
// RUN: %clangxx %cpu_cuda_flags -fplugin=%meshad_plugin -I%test_inputs -DSTALE %s -o %t.stale
// RUN: not --crash %t.stale 2>&1 | FileCheck %s --check-prefix=STALE
// RUN: not %clangxx %cpu_cuda_flags -fplugin=%meshad_plugin -I%test_inputs -DONE_FOR_ALL %s -o %t.one 2>&1 | FileCheck %s --check-prefix=ONE
#include "ElementArrays.h"
#include <cstdio>
#include <meshad/Differentiator.h>

namespace mt = meshad::test;

int main() {
  mt::ArrayMeshes Mesh;
  const int V = Mesh.V, M = Mesh.M, F = Mesh.F;
  // The caller's incidences (V vertices: the last one in no element).
  meshad::runtime::Incidence IncEdges(Mesh.Edges.device(), M, 2, V);
#ifdef STALE
  meshad::runtime::Incidence IncTris(Mesh.Tris.device(), F - 2, 3, V);
#else
  meshad::runtime::Incidence IncTris(Mesh.Tris.device(), F, 3, V);
#endif

  // Two-phase slots (Auto's gather has a use_incidence(inc) of its own).
  auto Motion =
      meshad::gradient(motion, "x, u, E", meshad::ElementStrategy::TwoPhase);
  Motion.use_incidence(IncEdges);
  auto MotionAtomic =
      meshad::gradient(motion, "x, u, E", meshad::ElementStrategy::Atomics);
  mt::checkMotion(Mesh, Motion, MotionAtomic);

  auto Cloth = meshad::gradient(cloth, "w, x, E");
#ifdef ONE_FOR_ALL
  // ONE: error: static assertion failed{{.*}}use_incidence(inc): the kernel reads its arrays through several index arrays; say which one inc is the incidence of: use_incidence(indices, inc)
  Cloth.use_incidence(IncEdges);
#endif
  Cloth.use_incidence(Mesh.Edges.device(), IncEdges);
  Cloth.use_incidence(Mesh.Tris.device(), IncTris);
  auto ClothAtomic =
      meshad::gradient(cloth, "w, x, E", meshad::ElementStrategy::Atomics);
  // STALE: meshad: cloth_grad: the incidence passed to use_incidence() has 5 elements of arity 3, the launch 7 of arity 3 (stale: rebuild it when the mesh changes)
  mt::checkCloth(Mesh, Cloth, ClothAtomic, F);
  return mt::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: {{[1-9][0-9]*}} passed, 0 failed
