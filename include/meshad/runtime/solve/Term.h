//===- meshad/runtime/solve/Term.h - One term of an energy ------*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// A term of a problem's energy: an element list (NumElements * Arity vertex
/// indices, the problem's S DOFs per vertex) and its local energy. `Term<T>`
/// is the interface the problem and the solvers see (energy, gradient,
/// PSD-projected sparse Hessian, HVP); `ElementTerm<Local, T>` implements it
/// with one thread per element over a local energy `Local` whose derivatives
/// meshad generates:
///
/// \code
///   MESHAD_HESSIAN("x[0:6]")
///   __host__ __device__ double spring(const double *x, const double *p);
///   struct Spring {                            // the local energy of a term
///     static constexpr int Arity = 2, Dofs = 3; // vertices, DOFs per vertex
///     __device__ static double energy(const double *x, const double *p) {
///       return spring(x, p);
///     }
///     __device__ static void gradient(const double *x, const double *p,
///                                     double *g) { // g zeroed, adds
///       spring_grad_0(x, p, g);                // meshad::gradient(spring, "x")
///     }
///     __device__ static void hessian(const double *x, const double *p,
///                                    double *H) { // writes all K x K
///       spring_hessian_0(x, p, H);
///     }
///     // optional: __device__ static void hvp(x, p, v, Hv) (Hv zeroed, adds;
///     // MESHAD_HVP("x")), used for unprojected HVPs instead of H v
///   };
///   // p = Params + ParamStride * element (ParamStride 0: shared parameters)
///   ElementTerm<Spring> Springs(dEdges, NumEdges, dParams, 2);
/// \endcode
///
/// Another implementation of Term<T> can wrap a kernel that meshad generates
/// for the whole element list (gradient and Hessian in one launch through
/// the HessianSlots it is given).
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_RUNTIME_SOLVE_TERM_H
#define MESHAD_RUNTIME_SOLVE_TERM_H

#include "meshad/runtime/PsdProjection.h"
#include "meshad/runtime/SparsePattern.h"
#include "meshad/runtime/solve/DeviceVector.h"

#include <type_traits>

namespace meshad {
namespace runtime {
namespace solve {

/// Where a term's elements put their results when the problem is
/// deterministic (Problem::setDeterministic): slots of their own that the
/// problem sums in a fixed order, instead of atomic adds. Null pointers:
/// add directly.
template <class T> struct ElementSlots {
  HessianSlots Slots;         ///< this term's list in the global matrix
  T *Gradient = nullptr;      ///< local gradient (e, a, k) at slot(e, a, a) * S + k
  T *HessianValues = nullptr; ///< per-slot values (SparseHessian::slotValues())
};

/// One term of an energy over the DOF vector X (S values per vertex, device
/// memory). Every method adds its term's part; X, G, V, Out are device
/// arrays of the problem's DOFs.
template <class T> class Term {
public:
  virtual ~Term() = default;
  /// Set by the problem before each evaluation: where results go (see
  /// ElementSlots).
  void setSlots(const ElementSlots<T> &S) { Targets = S; }
  /// The elements (device indices), for the problem's global pattern.
  virtual ElementList elements() const = 0;
  /// The DOFs per vertex the local energy reads (the problem's S).
  virtual int dofsPerVertex() const = 0;
  /// The term's energy at X.
  virtual T energy(const T *X) = 0;
  /// G += the gradient.
  virtual void addGradient(const T *X, T *G) = 0;
  /// Adds every element's local Hessian, projected to PSD when \p Project,
  /// through \p Slots (this term's list) into Values (zeroed by the caller);
  /// also G += the gradient when G is not null (one launch).
  virtual void addHessian(const T *X, const HessianSlots &Slots, T *Values,
                          bool Project, T *G) = 0;
  /// Out += H V (the local Hessians projected when \p Project).
  virtual void addHvp(const T *X, const T *V, T *Out, bool Project) = 0;

protected:
  ElementSlots<T> Targets;
  /// True while the problem is deterministic (results into slots).
  bool deterministic() const { return Targets.Gradient != nullptr; }
};

namespace detail {

template <class L, class T, class = void> struct HasLocalHvp : std::false_type {};
template <class L, class T>
struct HasLocalHvp<L, T,
                   std::void_t<decltype(L::hvp(
                       static_cast<const T *>(nullptr),
                       static_cast<const T *>(nullptr),
                       static_cast<const T *>(nullptr),
                       static_cast<T *>(nullptr)))>> : std::true_type {};

/// What an element kernel needs: the list and the parameters.
template <class T> struct ElementArgs {
  const int *Indices;
  int NumElements;
  const T *Params;
  int ParamStride;
};

/// Gathers element E's K = Arity * Dofs values of X (local DOF a*Dofs + k).
template <class Local, class T>
__device__ void gatherElement(const ElementArgs<T> &A, int E, const T *X,
                              T *Xl) {
  for (int V = 0; V < Local::Arity; ++V)
    for (int K = 0; K < Local::Dofs; ++K)
      Xl[V * Local::Dofs + K] =
          X[static_cast<long>(Local::Dofs) * A.Indices[Local::Arity * E + V] +
            K];
}

/// Out += the element's local vector G (atomically: vertices are shared).
template <class Local, class T>
__device__ void scatterElement(const ElementArgs<T> &A, int E, const T *G,
                               T *Out) {
  for (int V = 0; V < Local::Arity; ++V)
    for (int K = 0; K < Local::Dofs; ++K)
      atomicAdd(Out + static_cast<long>(Local::Dofs) *
                          A.Indices[Local::Arity * E + V] +
                    K,
                G[V * Local::Dofs + K]);
}

/// The element's local gradient G into the global gradient Out, or, when
/// deterministic, into its own slots.
template <class Local, class T>
__device__ void addGradientOf(const ElementArgs<T> &A, const ElementSlots<T> &D,
                              int E, const T *G, T *Out) {
  if (!D.Gradient)
    return scatterElement<Local>(A, E, G, Out);
  for (int V = 0; V < Local::Arity; ++V)
    for (int K = 0; K < Local::Dofs; ++K)
      D.Gradient[static_cast<long>(D.Slots.slot(E, V, V)) * Local::Dofs + K] =
          G[V * Local::Dofs + K];
}

template <class Local, class T>
__global__ void elementEnergyKernel(ElementArgs<T> A, const T *X, T *Out) {
  MESHAD_SOLVE_GRID_STRIDE(Item, A.NumElements) {
    int E = static_cast<int>(Item);
    T Xl[Local::Arity * Local::Dofs];
    gatherElement<Local>(A, E, X, Xl);
    Out[E] = Local::energy(Xl, A.Params + static_cast<long>(A.ParamStride) * E);
  }
}

template <class Local, class T>
__global__ void elementGradientKernel(ElementArgs<T> A, ElementSlots<T> D,
                                      const T *X, T *G) {
  MESHAD_SOLVE_GRID_STRIDE(Item, A.NumElements) {
    int E = static_cast<int>(Item);
    constexpr int K = Local::Arity * Local::Dofs;
    T Xl[K], Gl[K];
    gatherElement<Local>(A, E, X, Xl);
    for (int I = 0; I < K; ++I)
      Gl[I] = T(0);
    Local::gradient(Xl, A.Params + static_cast<long>(A.ParamStride) * E, Gl);
    addGradientOf<Local>(A, D, E, Gl, G);
  }
}

template <class Local, class T>
__global__ void elementHessianKernel(ElementArgs<T> A, ElementSlots<T> D,
                                     const T *X, HessianSlots Slots, T *Values,
                                     bool Project, T *G) {
  MESHAD_SOLVE_GRID_STRIDE(Item, A.NumElements) {
    int E = static_cast<int>(Item);
    constexpr int K = Local::Arity * Local::Dofs;
    T Xl[K], Hl[K * K];
    const T *P = A.Params + static_cast<long>(A.ParamStride) * E;
    gatherElement<Local>(A, E, X, Xl);
    if (G) {
      T Gl[K];
      for (int I = 0; I < K; ++I)
        Gl[I] = T(0);
      Local::gradient(Xl, P, Gl);
      addGradientOf<Local>(A, D, E, Gl, G);
    }
    Local::hessian(Xl, P, Hl);
    if (Project)
      projectPsd(Hl, K, T(0));
    if (D.HessianValues)
      storeElementHessian(Slots, E, Hl, D.HessianValues);
    else
      addElementHessian(Slots, E, Hl, Values);
  }
}

template <class Local, class T>
__global__ void elementHvpKernel(ElementArgs<T> A, const T *X, const T *V,
                                 T *Out, bool Project) {
  MESHAD_SOLVE_GRID_STRIDE(Item, A.NumElements) {
    int E = static_cast<int>(Item);
    constexpr int K = Local::Arity * Local::Dofs;
    T Xl[K], Vl[K], Hv[K];
    const T *P = A.Params + static_cast<long>(A.ParamStride) * E;
    gatherElement<Local>(A, E, X, Xl);
    gatherElement<Local>(A, E, V, Vl);
    for (int I = 0; I < K; ++I)
      Hv[I] = T(0);
    if constexpr (HasLocalHvp<Local, T>::value) {
      if (!Project) {
        Local::hvp(Xl, P, Vl, Hv);
        scatterElement<Local>(A, E, Hv, Out);
        continue;
      }
    }
    T Hl[K * K];
    Local::hessian(Xl, P, Hl);
    if (Project)
      projectPsd(Hl, K, T(0));
    for (int I = 0; I < K; ++I)
      for (int J = 0; J < K; ++J)
        Hv[I] += Hl[I * K + J] * Vl[J];
    scatterElement<Local>(A, E, Hv, Out);
  }
}

} // namespace detail

/// A term over an element list whose local energy, gradient and Hessian are
/// Local's static __device__ functions (see the file comment). Holds device
/// pointers it does not own.
template <class Local, class T = double> class ElementTerm : public Term<T> {
public:
  static_assert(Local::Arity * Local::Dofs <= MaxPsdSize,
                "a local Hessian is at most 12 x 12 (projectPsd)");

  ElementTerm(const int *DeviceIndices, int NumElements,
              const T *DeviceParams = nullptr, int ParamStride = 0)
      : Args{DeviceIndices, NumElements, DeviceParams, ParamStride} {}

  ElementList elements() const override {
    return {Args.Indices, Args.NumElements, Local::Arity};
  }
  int dofsPerVertex() const override { return Local::Dofs; }

  /// The elements' energies summed in a fixed order (bitwise reproducible:
  /// the line search compares energies).
  T energy(const T *X) override {
    if (!Args.NumElements)
      return T(0);
    Energies.resize(Args.NumElements);
    MESHAD_LAUNCH((detail::elementEnergyKernel<Local, T>), blocks(),
                  threads())(Args, X, Energies.data());
    return sum(static_cast<long>(Args.NumElements), Energies.data());
  }
  void addGradient(const T *X, T *G) override {
    if (Args.NumElements)
      MESHAD_LAUNCH((detail::elementGradientKernel<Local, T>), blocks(),
                    threads())(Args, this->Targets, X, G);
  }
  void addHessian(const T *X, const HessianSlots &Slots, T *Values,
                  bool Project, T *G) override {
    if (Args.NumElements)
      MESHAD_LAUNCH((detail::elementHessianKernel<Local, T>), blocks(),
                    threads())(Args, this->Targets, X, Slots, Values, Project, G);
  }
  void addHvp(const T *X, const T *V, T *Out, bool Project) override {
    if (Args.NumElements)
      MESHAD_LAUNCH((detail::elementHvpKernel<Local, T>), blocks(),
                    threads())(Args, X, V, Out, Project);
  }

private:
  detail::ElementArgs<T> Args;
  DeviceBuffer<T> Energies;
  int blocks() const { return detail::shapeFor(Args.NumElements).Blocks; }
  int threads() const { return detail::shapeFor(Args.NumElements).Threads; }
};

} // namespace solve
} // namespace runtime
} // namespace meshad

#endif // MESHAD_RUNTIME_SOLVE_TERM_H
