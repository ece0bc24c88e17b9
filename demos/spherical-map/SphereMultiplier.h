//===- demos/spherical-map/SphereMultiplier.h - The sphere's curvature ----===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
//
// Newton on an energy E(y) = F(y_1/|y_1|, ..., y_n/|y_n|) of points
// projected onto the unit sphere. Per vertex, with q = y/|y|, r = |y|,
// P = I - q q^T and g = dF/dq (the assembled gradient of F in the
// coordinates on the sphere), the exact Hessian is
//   sum over elements of J^T H_q J  (J = P / r per corner)
//   + per vertex (-(q . g) P - q (P g)^T - (P g) q^T) / r^2.
// The first part is what the elements see; the second needs g summed over
// all the elements of a vertex: an element's own (q . g) is large and of
// either sign, and cancels, to the sphere's Lagrange multiplier, only in
// the sum. Projecting each element's share to PSD (the y-Hessians of the
// elements, projected one by one) adds curvature of the order of each
// element's force and leaves Newton linear; this term adds the summed one
// instead, so that sum_e PSD(J^T H_q,e J) + this term is the Riemannian
// Hessian of F on the product of spheres, less the per-element clamping
// of J^T H_q J.
//
// SphereMultiplierTerm<LocalOn> is that per-vertex term (no energy, no
// gradient, only its share of the Hessian and of H v), LocalOn the local
// energy of the elements in q (its gradient is meshad's). Projected
// (Problem::hessian(X, true)), the block is max(-q . g, 0) P / r^2: PSD, and
// exact at a minimum where every multiplier -q . g is positive (P g = 0
// there); exact otherwise.
//
//   P.add<SphereTriangleRiemannian>(dTris, NumTris, dParams, 7);
//   P.add(std::make_unique<SphereMultiplierTerm<SphereTriangleOn>>(
//       dTris, NumTris, dParams, 7, dVertices, NumVertices));
//
//===----------------------------------------------------------------------===//

#ifndef MESHAD_DEMOS_SPHERE_MULTIPLIER_H
#define MESHAD_DEMOS_SPHERE_MULTIPLIER_H

#include <meshad/runtime/solve/Term.h>

namespace demo {

namespace sv = meshad::runtime::solve;

/// Gq += each triangle's gradient of LocalOn at its corners projected onto
/// the sphere.
template <class LocalOn, class T>
__global__ void sphereForceKernel(sv::detail::ElementArgs<T> A, const T *Y,
                                  T *Gq) {
  MESHAD_SOLVE_GRID_STRIDE(Item, A.NumElements) {
    int E = static_cast<int>(Item);
    constexpr int K = LocalOn::Arity * 3;
    T Q[K], G[K];
    sv::detail::gatherElement<LocalOn>(A, E, Y, Q);
    for (int C = 0; C < LocalOn::Arity; ++C) {
      T R = sqrt(Q[3 * C] * Q[3 * C] + Q[3 * C + 1] * Q[3 * C + 1] +
                 Q[3 * C + 2] * Q[3 * C + 2]);
      for (int D = 0; D < 3; ++D)
        Q[3 * C + D] /= R;
    }
    for (int I = 0; I < K; ++I)
      G[I] = T(0);
    LocalOn::gradient(Q, A.Params + static_cast<long>(A.ParamStride) * E, G);
    sv::detail::scatterElement<LocalOn>(A, E, G, Gq);
  }
}

/// Vertex V's 3 x 3 block of the multiplier term at Y, from the summed
/// gradient Gq (see the file comment).
template <class T>
__host__ __device__ void multiplierBlock(const T *Y, const T *Gq, bool Project,
                                         T *B) {
  T R2 = Y[0] * Y[0] + Y[1] * Y[1] + Y[2] * Y[2], R = sqrt(R2);
  T Q[3] = {Y[0] / R, Y[1] / R, Y[2] / R};
  T Lambda = Q[0] * Gq[0] + Q[1] * Gq[1] + Q[2] * Gq[2];
  T Pg[3] = {Gq[0] - Lambda * Q[0], Gq[1] - Lambda * Q[1],
             Gq[2] - Lambda * Q[2]};
  T Scale = Project ? (Lambda < 0 ? -Lambda : T(0)) : -Lambda;
  for (int I = 0; I < 3; ++I)
    for (int J = 0; J < 3; ++J) {
      T V = Scale * ((I == J) - Q[I] * Q[J]);
      if (!Project)
        V -= Q[I] * Pg[J] + Pg[I] * Q[J];
      B[3 * I + J] = V / R2;
    }
}

template <class T>
__global__ void multiplierHessianKernel(sv::ElementSlots<T> D, int NumVertices,
                                        const int *Vertices, const T *Y,
                                        const T *Gq, meshad::runtime::HessianSlots Slots,
                                        T *Values, bool Project) {
  MESHAD_SOLVE_GRID_STRIDE(Item, NumVertices) {
    int E = static_cast<int>(Item), V = Vertices[E];
    T B[9];
    multiplierBlock(Y + 3L * V, Gq + 3L * V, Project, B);
    if (D.HessianValues)
      meshad::runtime::storeElementHessian(Slots, E, B, D.HessianValues);
    else
      meshad::runtime::addElementHessian(Slots, E, B, Values);
  }
}

template <class T>
__global__ void multiplierHvpKernel(int NumVertices, const int *Vertices,
                                    const T *Y, const T *Gq, const T *In,
                                    T *Out, bool Project) {
  MESHAD_SOLVE_GRID_STRIDE(Item, NumVertices) {
    long V = Vertices[Item];
    T B[9];
    multiplierBlock(Y + 3 * V, Gq + 3 * V, Project, B);
    for (int I = 0; I < 3; ++I)
      Out[3 * V + I] += B[3 * I] * In[3 * V] + B[3 * I + 1] * In[3 * V + 1] +
                        B[3 * I + 2] * In[3 * V + 2];
  }
}

/// The per-vertex term of the Hessian of an energy on the sphere (see the
/// file comment): the elements (device indices, parameters) of LocalOn,
/// and the vertex list the term's blocks go to (one block per vertex, each
/// vertex once). No energy, no gradient. Holds device pointers it does
/// not own.
template <class LocalOn, class T = double>
class SphereMultiplierTerm : public sv::Term<T> {
public:
  SphereMultiplierTerm(const int *Elements, int NumElements, const T *Params,
                       int ParamStride, const int *Vertices, int NumVertices)
      : Args{Elements, NumElements, Params, ParamStride}, Vertices(Vertices),
        NumVertices(NumVertices) {}
  meshad::runtime::ElementList elements() const override {
    return {Vertices, NumVertices, 1};
  }
  int dofsPerVertex() const override { return 3; }
  T energy(const T *) override { return T(0); }
  void addGradient(const T *, T *) override {}
  void addHessian(const T *Y, const meshad::runtime::HessianSlots &Slots, T *Values,
                  bool Project, T *) override {
    assembleForces(Y);
    MESHAD_LAUNCH((multiplierHessianKernel<T>), blocks(NumVertices),
                  threads(NumVertices))(this->Targets, NumVertices, Vertices,
                                        Y, Gq.data(), Slots, Values, Project);
  }
  void addHvp(const T *Y, const T *V, T *Out, bool Project) override {
    assembleForces(Y);
    MESHAD_LAUNCH((multiplierHvpKernel<T>), blocks(NumVertices),
                  threads(NumVertices))(NumVertices, Vertices, Y, Gq.data(), V,
                                        Out, Project);
  }

private:
  sv::detail::ElementArgs<T> Args;
  const int *Vertices;
  int NumVertices;
  sv::DeviceBuffer<T> Gq; ///< dF/dq, 3 per vertex of the mesh

  /// Gq = the elements' gradients in q, summed per vertex (every vertex of
  /// the mesh is in the vertex list: its size bounds the indices).
  void assembleForces(const T *Y) {
    Gq.resize(3L * NumVertices);
    sv::fill(3L * NumVertices, T(0), Gq.data());
    MESHAD_LAUNCH((sphereForceKernel<LocalOn, T>), blocks(Args.NumElements),
                  threads(Args.NumElements))(Args, Y, Gq.data());
  }
  static int blocks(int N) { return sv::detail::shapeFor(N).Blocks; }
  static int threads(int N) { return sv::detail::shapeFor(N).Threads; }
};

} // namespace demo

#endif // MESHAD_DEMOS_SPHERE_MULTIPLIER_H
