//===- meshad/runtime/solve/ElementKernelTerm.h - A kernel as a term -*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// A term of a problem that is a plain CUDA element kernel (one thread per
/// element, its vertices read through an index array, its energy added
/// into E with atomicAdd): the energy from the kernel itself, the gradient
/// and the (PSD-projected) sparse Hessian from the handle of
/// `meshad::hessian(kernel, "x")` (meshad/ElementHessian.h), which
/// assembles them into a matrix of its own in one launch; AssembledTerm
/// adds that matrix into the problem's. The caller says where X and E go
/// in the kernel's arguments with a callable that returns them as a tuple.
///
/// \code
///   __global__ void springs(int n, const int *edges, const double *x,
///                           const double *P, double *E);
///   auto h = meshad::hessian(springs, "x");
///   P.add(elementKernelTerm<double>(
///       h, springs, ElementList{dEdges, NumEdges, 2}, /*Dofs=*/3,
///       [=](const double *X, double *E) {
///         return std::make_tuple(NumEdges, dEdges, X, dParams, E);
///       }));
///   newton(P, dX);   // the handle's ProjectPsd follows SolveOptions::Project;
///                    // Problem::setDeterministic sets its Deterministic
/// \endcode
///
/// Include meshad/Differentiator.h and meshad/ElementHessian.h first (the
/// handle's type, the kernel launches).
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_RUNTIME_SOLVE_ELEMENTKERNELTERM_H
#define MESHAD_RUNTIME_SOLVE_ELEMENTKERNELTERM_H

#include "meshad/runtime/solve/AssembledTerm.h"

#include <memory>
#include <tuple>
#include <utility>

namespace meshad {
namespace runtime {
namespace solve {

/// A term over an element kernel \p K and its handle \p H (from
/// meshad::hessian(K, "x")); see the file comment. \p L: the kernel's index
/// array as an element list; \p Dofs: the DOFs per vertex; \p Args(X, E):
/// the kernel's arguments as a tuple. The gradient (also alone) and the
/// Hessian come from one launch of the handle's kernel.
template <class T, class Handle, class Kernel, class ArgsFn>
class ElementKernelTerm : public AssembledTerm<T> {
  using Callbacks = typename AssembledTerm<T>::Callbacks;

public:
  ElementKernelTerm(Handle H, Kernel K, ElementList L, int Dofs, ArgsFn Args)
      : AssembledTerm<T>(callbacks(L, Dofs)), H(H), K(K), L(L), Args(Args),
        Energy(1) {}

private:
  Handle H;
  Kernel K;
  ElementList L;
  ArgsFn Args;
  DeviceBuffer<T> Energy;
  static constexpr int Threads = 128;

  Callbacks callbacks(ElementList Elements, int Dofs) {
    Callbacks C;
    C.Elements = Elements;
    C.Dofs = Dofs;
    C.Energy = [this](const T *X) { return energyAt(X); };
    C.AddGradient = [this](const T *X, T *G) { assemble(X, false, G); };
    C.Assemble = [this](const T *X, bool Project,
                        T *G) -> const SparseHessian<T> & {
      return assemble(X, Project, G);
    };
    C.Format = SparseFormat::Bsr;
    return C;
  }
  dim3 grid() const { return dim3((L.NumElements + Threads - 1) / Threads); }

  /// The kernel's energy at X (its atomicAdds into a zeroed scalar).
  T energyAt(const T *X) {
    fill(1, T(0), Energy.data());
    std::apply(
        [&](auto... A) {
          meshad::detail::launchKernel(H.getName(), K, grid(), dim3(Threads),
                                       0, nullptr, A...);
        },
        Args(X, Energy.data()));
    return Energy.download()[0];
  }
  /// G += the gradient (when not null), and the handle's matrix at X
  /// (projected when \p Project; deterministic when the problem is).
  const SparseHessian<T> &assemble(const T *X, bool Project, T *G) {
    ElementHessianOptions O = H.options();
    O.ProjectPsd = Project;
    O.Deterministic = this->deterministic();
    O.Format = SparseFormat::Bsr;
    H.set_options(O);
    std::apply([&](auto... A) { H.execute_kernel(grid(), dim3(Threads), A..., G); },
               Args(X, static_cast<T *>(nullptr)));
    return H.matrix();
  }
};

/// The term of \p K and \p H as a Problem<T>::add argument.
template <class T, class Handle, class Kernel, class ArgsFn>
std::unique_ptr<Term<T>> elementKernelTerm(Handle H, Kernel K, ElementList L,
                                           int Dofs, ArgsFn Args) {
  return std::make_unique<ElementKernelTerm<T, Handle, Kernel, ArgsFn>>(
      H, K, L, Dofs, Args);
}

} // namespace solve
} // namespace runtime
} // namespace meshad

#endif // MESHAD_RUNTIME_SOLVE_ELEMENTKERNELTERM_H
