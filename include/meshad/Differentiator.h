//===- meshad/Differentiator.h - The meshad user API -------------*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// What user code includes. Requests derivatives clad-style:
///
/// \code
///   #include <meshad/Differentiator.h>
///   double f(double x, double y) { return x * x * y; }
///   int main() {
///     auto df = meshad::differentiate(f, "x"); // forward mode, d f / d x
///     double v = df.execute(3.0, 4.0);         // 24
///     df.dump();                               // prints the generated code
///   }
/// \endcode
///
/// compiled with `clang++ -fplugin=libmeshad.so`, or run through `meshad-gen`
/// first to get a plain .cu that nvcc compiles. The plugin (or meshad-gen)
/// generates the derivative, declares it in the same translation unit, and
/// completes the call with a meshad::Derived handle to it; without either of
/// them the call is a compile-time error.
///
/// Annotation route, without any call site:
///
/// \code
///   MESHAD_FORWARD("x") double g(double x, double y) { return x * y; }
///   // meshad generates `double g_darg0(double x, double y)`.
/// \endcode
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_DIFFERENTIATOR_H
#define MESHAD_DIFFERENTIATOR_H

#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <tuple>
#include <type_traits>
#include <utility>

#include <meshad/codegen/Polygamma.h>
#include <meshad/codegen/Recurrences.h>
#include <meshad/codegen/SparseLoop.h>
#include <meshad/codegen/Tape.h>

#if defined(__CUDACC__)
#include <cuda_runtime.h>
#define MESHAD_HOST_DEVICE __host__ __device__
#elif defined(MESHAD_CPU_CUDA)
// CUDA emulated on the CPU (-include meshad/cpu/CudaOnCpu.h).
#include <meshad/cpu/CudaOnCpu.h>
#define MESHAD_HOST_DEVICE __host__ __device__
#else
#define MESHAD_HOST_DEVICE
#endif

#include <meshad/codegen/AdjointTile.h>
#include <meshad/codegen/BlockReduce.h>
#include <meshad/codegen/WarpAtomics.h>
#include <meshad/codegen/WarpStep.h>
#include <meshad/codegen/CudaAdjoint.h>
#include <meshad/codegen/DynamicShared.h>
#include <meshad/codegen/HeapArray.h>
// The adjoints of Thrust primitives, when Thrust is included first.
#ifdef THRUST_VERSION
#include <meshad/codegen/ThrustAdjoint.h>
#endif

/// Asserts that no two threads of a launch touch the same element of the
/// annotated pointer parameter of a kernel, when the proof needs facts the
/// compiler cannot see (elements processed in colour order, a permutation
/// array...). Reverse mode then adds to its adjoint with plain stores, and
/// the ownership remark says the class was asserted, not proven. A wrong
/// assertion makes the gradient race.
///
/// \code
///   __global__ void scatter(const int *perm, double *x MESHAD_THREAD_EXCLUSIVE,
///                           int n) {
///     int i = blockIdx.x * blockDim.x + threadIdx.x;
///     if (i < n) x[perm[i]] *= 2.0;   // perm is a permutation
///   }
/// \endcode
#define MESHAD_THREAD_EXCLUSIVE                                                 \
  __attribute__((annotate("meshad::thread_exclusive")))

/// Asks meshad for the forward-mode derivative of the annotated function
/// definition w.r.t. the parameters in SPEC (one parameter or element), under
/// the stable name `<function>_darg<N>` (`<function>_darg<N>_<K>` for element
/// K of parameter N). Expands to nothing for compilers other than clang, so
/// meshad-gen output compiles with nvcc.
#if defined(__clang__)
#define MESHAD_FORWARD(SPEC) __attribute__((annotate("meshad.forward:" SPEC)))
#else
#define MESHAD_FORWARD(SPEC)
#endif

/// Asks meshad for the Hessian-vector product of the annotated function
/// definition w.r.t. the parameters in SPEC ("" for every input), under the
/// stable name `<function>_hvp[_<i>_<j>]` (see meshad::hvp), e.g. for a
/// device energy called from a Newton kernel:
/// \code
///   MESHAD_HVP("x") __device__ double energy(const double *x, double k);
///   // meshad generates __device__ void energy_hvp_0(const double *x,
///   //     double k, const double *_d2_x, double *_d2_d_x)
/// \endcode
#if defined(__clang__)
#define MESHAD_HVP(SPEC) __attribute__((annotate("meshad.hvp:" SPEC)))
#else
#define MESHAD_HVP(SPEC)
#endif

/// Asks meshad for the dense Hessian of the annotated scalar function
/// definition w.r.t. the inputs in SPEC (see meshad::hessian), under the
/// stable name `<function>_hessian[_<i>_<j>]`, e.g. for a device energy
/// whose local Hessians a Newton kernel assembles:
/// \code
///   MESHAD_HESSIAN("x[0:6]") __device__ double spring(const double *x,
///                                                     double k);
///   // meshad generates __device__ void spring_hessian_0(const double *x,
///   //     double k, double *H)   (H: 6 x 6, row-major)
/// \endcode
#if defined(__clang__)
#define MESHAD_HESSIAN(SPEC) __attribute__((annotate("meshad.hessian:" SPEC)))
#else
#define MESHAD_HESSIAN(SPEC)
#endif

namespace meshad {

/// The value of a function and its directional derivative, returned by the
/// generated pushforwards of called functions.
///
/// \code
///   meshad::ValueAndPushforward<double, double> r = g_pushforward(x, _d_x);
///   double v = r.value, dv = r.pushforward;
/// \endcode
template <class T, class U> struct ValueAndPushforward {
  T value;
  U pushforward;
};

/// Adds \p V to \p *P: atomically on the device, plainly on the host (where
/// generated __host__ __device__ derivatives run one thread at a time).
template <class T> MESHAD_HOST_DEVICE inline void atomicAccumulate(T *P, T V) {
#if defined(__CUDA_ARCH__)
  atomicAdd(P, V);
#else
  *P += V;
#endif
}

/// Adds \p V to \p *P, an element that no other thread of the launch
/// touches and that the kernel does not read back (a thread-exclusive
/// adjoint; see lib/GPU/ExclusiveAdds). On the GPU it is an atomicAdd
/// whose result is unused: a reduction at L2 that needs no load round trip,
/// uncontended and, with one adder per element, deterministic. On the CPU it
/// is a plain +=.
///
/// \code
///   meshad::exclusiveAdd(&_d_x[i], _r0 * cos(x[i]));
/// \endcode
template <class T> MESHAD_HOST_DEVICE inline void exclusiveAdd(T *P, T V) {
#if defined(__CUDA_ARCH__)
  atomicAdd(P, V);
#else
  *P += V;
#endif
}

namespace detail {
/// Stops the kernel with \p Message (trap on the GPU, abort on the CPU).
MESHAD_HOST_DEVICE inline void launchShapeError(const char *Message) {
#if defined(__CUDA_ARCH__)
  printf("%s", Message);
  __trap();
#elif defined(MESHAD_CPU_CUDA)
  std::fprintf(stderr, "%s", Message);
  std::abort();
#else
  (void)Message;
#endif
}
} // namespace detail

/// Called first by generated gradient kernels whose thread-exclusive adjoint
/// stores are plain (not atomic): the ownership proof assumes a 1D launch
/// (threads then differ in their global x index). Traps otherwise.
MESHAD_HOST_DEVICE inline void requireLaunch1D() {
#if defined(__CUDA_ARCH__) || defined(MESHAD_CPU_CUDA)
  if (blockDim.y != 1 || blockDim.z != 1 || gridDim.y != 1 || gridDim.z != 1)
    detail::launchShapeError(
        "meshad: this gradient kernel relies on a 1D launch (its "
        "thread-exclusive adjoint stores are plain, not atomic); launch it "
        "with a 1D grid and 1D blocks\n");
#endif
}

/// Called first by gradients under meshad::WithValue, once per output they
/// keep: the gradient stores the output while it reads the output's seed
/// from the adjoint argument, so the two must be separate buffers. Stops
/// the program (trap on the GPU, abort on the host) when they are one.
template <class T>
MESHAD_HOST_DEVICE inline void requireSeparateSeed(const T *Output,
                                                   const T *Seed) {
  if (Output && Output == Seed) {
    const char *Message =
        "meshad: a seed is the output itself (meshad::WithValue keeps the "
        "output and reads the seed from the adjoint argument): pass a "
        "separate buffer as the output's adjoint\n";
#if defined(__CUDA_ARCH__) || defined(MESHAD_CPU_CUDA)
    detail::launchShapeError(Message);
#else
    std::fprintf(stderr, "%s", Message);
    std::abort();
#endif
  }
}

/// Like requireLaunch1D, for proofs over 2D thread indices: blockDim.z and
/// gridDim.z must be 1.
MESHAD_HOST_DEVICE inline void requireLaunch2D() {
#if defined(__CUDA_ARCH__) || defined(MESHAD_CPU_CUDA)
  if (blockDim.z != 1 || gridDim.z != 1)
    detail::launchShapeError(
        "meshad: this gradient kernel relies on a 2D launch (its "
        "thread-exclusive adjoint stores are plain, not atomic); launch it "
        "with blockDim.z == gridDim.z == 1\n");
#endif
}

/// `= delete("why")` where the compiler has it (clang, also in C++17 as an
/// extension), plain `= delete` elsewhere (nvcc).
#if defined(__clang__) && !defined(__NVCC__)
#define MESHAD_DELETED(WHY)                                                    \
  _Pragma("clang diagnostic push")                                             \
      _Pragma("clang diagnostic ignored \"-Wc++26-extensions\"") =            \
          delete (WHY) _Pragma("clang diagnostic pop")
#else
#define MESHAD_DELETED(WHY) = delete
#endif

namespace detail {
template <class T> struct AlwaysFalse : std::false_type {};
/// \p B, but dependent on \p Ts (a static_assert checked at instantiation).
template <bool B, class... Ts> inline constexpr bool DependentBool = B;

/// The number of parameters of a function pointer type.
template <class F> struct Arity;
template <class R, class... P> struct Arity<R (*)(P...)> {
  static constexpr size_t value = sizeof...(P);
};

template <class... Ts> struct TypeList {};

/// Whether the argument types \p As convert one for one to \p Ps.
template <class Ps, class As, class = void>
struct ConvertsAll : std::false_type {};
template <class... Ps, class... As>
struct ConvertsAll<TypeList<Ps...>, TypeList<As...>,
                   std::enable_if_t<sizeof...(Ps) == sizeof...(As)>>
    : std::conjunction<std::is_convertible<As, Ps>...> {};

/// Whether a call of function pointer type \p F with \p Args compiles
/// (without calling it: a __global__ function is not callable from host).
template <class F, class... Args> struct ArgsMatch : std::false_type {};
template <class R, class... P, class... Args>
struct ArgsMatch<R (*)(P...), Args...>
    : ConvertsAll<TypeList<P...>, TypeList<Args...>> {};

/// execute_kernel's arguments: the kernel's, optionally after sharedBytes
/// and a stream.
template <class F, class... Args> struct LaunchArgsMatch : ArgsMatch<F, Args...> {};
template <class F, class S, class T, class... Rest>
struct LaunchArgsMatch<F, S, T, Rest...>
    : std::disjunction<ArgsMatch<F, S, T, Rest...>,
                       std::conjunction<std::is_integral<std::decay_t<S>>,
                                        ArgsMatch<F, Rest...>>> {};

/// Launches kernel \p Fn with arguments converted to its parameter types.
#if defined(__CUDACC__)
template <class... Params, class... Args>
cudaError_t launch(void (*Fn)(Params...), dim3 Grid, dim3 Block,
                   size_t SharedBytes, cudaStream_t Stream, Args &&...A) {
  static_assert(sizeof...(Params) == sizeof...(Args),
                "execute_kernel: wrong number of arguments for the derived "
                "kernel (the primal's arguments, then one adjoint or tangent "
                "array per selected or written array parameter)");
  std::tuple<std::decay_t<Params>...> Values(std::forward<Args>(A)...);
  void *Ptrs[sizeof...(Params) + 1] = {};
  std::apply(
      [&](auto &...V) {
        unsigned I = 0;
        ((Ptrs[I++] = static_cast<void *>(&V)), ...);
      },
      Values);
  return cudaLaunchKernel(reinterpret_cast<const void *>(Fn), Grid, Block,
                          Ptrs, SharedBytes, Stream);
}
#endif

#if defined(__CUDACC__) || defined(MESHAD_CPU_CUDA)
/// Launches kernel \p Fn on the GPU, or under the CPU emulation, whose
/// messages name it \p Name.
template <class... Params, class... Args>
cudaError_t launchKernel(const char *Name, void (*Fn)(Params...), dim3 Grid,
                         dim3 Block, size_t SharedBytes, cudaStream_t Stream,
                         Args &&...A) {
#if defined(__CUDACC__)
  (void)Name;
  return launch(Fn, Grid, Block, SharedBytes, Stream, std::forward<Args>(A)...);
#else
  (void)Stream;
  return ::meshad::cpu::launchNamed(Name, Fn, Grid, Block, SharedBytes,
                                    std::forward<Args>(A)...);
#endif
}
#endif
} // namespace detail

/// A handle to a generated derivative: its function pointer (null for
/// device-only functions, which are called by name from device code) and its
/// source text. The plugin/meshad-gen creates these; users get them from
/// meshad::differentiate/gradient/hessian. \p IsKernel is true for derived
/// __global__ kernels, which are launched with execute_kernel (execute is a
/// compile-time error for them).
///
/// \code
///   auto df = meshad::differentiate(f, "x");
///   double d = df.execute(1.0, 2.0);
///   std::puts(df.getCode());
/// \endcode
template <class FnPtr, bool IsKernel = false> class Derived {
public:
  /// \p SharedFactor: how many times the dynamic shared bytes given to
  /// execute_kernel the derived kernel is launched with (2 when it keeps
  /// derivatives of dynamic shared memory after the primal's).
  constexpr Derived(FnPtr Fn, const char *Name, const char *Code,
                    unsigned SharedFactor = 1)
      : Fn(Fn), Name(Name), Code(Code), SharedFactor(SharedFactor) {}

  /// Calls the derivative with \p A: the primal's arguments followed by the
  /// extra tangent/adjoint arguments the derived signature lists (see
  /// getCode()).
  template <class... Args,
            std::enable_if_t<IsKernel || detail::ArgsMatch<FnPtr, Args...>::value,
                             int> = 0>
  decltype(auto) execute(Args &&...A) const {
    if constexpr (IsKernel) {
      static_assert(!detail::DependentBool<IsKernel, Args...>,
                    "meshad: this derivative is a __global__ kernel: launch "
                    "it with execute_kernel(grid, block, args...), not "
                    "execute(args...)");
    } else {
      if (!Fn) {
        std::fprintf(stderr,
                     "meshad: '%s' is device code; call it from device code\n",
                     Name);
        std::abort();
      }
      return Fn(std::forward<Args>(A)...);
    }
  }

  /// Arguments that do not fit the derived function: one error at the call.
  /// The note names the derived signature (DerivedSignature = ...);
  /// getCode() shows it with parameter names.
  template <class... Args, class DerivedSignature = FnPtr,
            std::enable_if_t<!IsKernel &&
                                 !detail::ArgsMatch<FnPtr, Args...>::value,
                             int> = 0>
  void execute(Args &&...) const MESHAD_DELETED(
      "meshad: these arguments do not fit the derived function: pass the "
      "primal's arguments, then one adjoint (or tangent) per selected "
      "parameter; its signature is 'DerivedSignature' in the note below, and "
      "getCode() shows it with names");

#if defined(__CUDACC__) || defined(MESHAD_CPU_CUDA)
  /// Launches a derived kernel: `execute_kernel(grid, block, args...)`, or
  /// `execute_kernel(grid, block, sharedBytes, stream, args...)` (told apart
  /// by the number of arguments the derived kernel takes; sharedBytes are
  /// the primal's: a kernel with dynamic shared memory gets twice as many). Under the CPU
  /// emulation the kernel runs on the CPU and the stream is ignored.
  template <class... Args,
            std::enable_if_t<detail::LaunchArgsMatch<FnPtr, Args...>::value,
                             int> = 0>
  cudaError_t execute_kernel(dim3 Grid, dim3 Block, Args &&...A) const {
    if constexpr (sizeof...(Args) == detail::Arity<FnPtr>::value + 2)
      return launchWithOptions(Grid, Block, std::forward<Args>(A)...);
    else
      return launchImpl(Grid, Block, 0, nullptr, std::forward<Args>(A)...);
  }

  /// Arguments that fit neither form of the derived kernel: one error at the
  /// call, whose note names the derived signature.
  template <class... Args, class DerivedSignature = FnPtr,
            std::enable_if_t<!detail::LaunchArgsMatch<FnPtr, Args...>::value,
                             int> = 0>
  cudaError_t execute_kernel(dim3, dim3, Args &&...) const MESHAD_DELETED(
      "meshad: these arguments do not fit the derived kernel: pass "
      "(grid, block[, sharedBytes, stream], the primal's arguments, then one "
      "adjoint or tangent array per selected or written array parameter); its "
      "signature is 'DerivedSignature' in the note below, and getCode() shows "
      "it with names");

private:
  template <class S, class T, class... Rest>
  cudaError_t launchWithOptions(dim3 Grid, dim3 Block, S SharedBytes,
                                T Stream, Rest &&...R) const {
    cudaStream_t St = nullptr;
    if constexpr (!std::is_integral_v<std::decay_t<T>>)
      St = Stream;
    return launchImpl(Grid, Block, static_cast<size_t>(SharedBytes), St,
                      std::forward<Rest>(R)...);
  }
  template <class... Rest>
  cudaError_t launchImpl(dim3 Grid, dim3 Block, size_t SharedBytes,
                         cudaStream_t Stream, Rest &&...R) const {
    return detail::launchKernel(Name, Fn, Grid, Block,
                                SharedBytes * SharedFactor, Stream,
                                std::forward<Rest>(R)...);
  }

public:
#endif

  /// The generated source of the derivative and of the derived functions it
  /// calls.
  const char *getCode() const { return Code; }
  /// The derived function's name ("f_darg0").
  const char *getName() const { return Name; }
  /// Prints getCode() to stdout.
  void dump() const { std::fputs(Code, stdout); }
  FnPtr getFunctionPointer() const { return Fn; }

private:
  FnPtr Fn;
  const char *Name;
  const char *Code;
  unsigned SharedFactor;
};

/// The structure of a generated Hessian (meshad::hessian): entry (i, j) of
/// the k x k matrix holds unique value Value[i * k + j] of the packed form,
/// times Sign[i * k + j] (+1 or -1), or is a structural zero (Value -1).
/// The arrays are host data (copy them to use unpack on the device).
///
/// \code
///   const meshad::HessianPattern &P = h.pattern();
///   std::vector<double> Vals(P.NumValues), H(P.Size * P.Size);
///   h.execute_packed(x, k, Vals.data());
///   meshad::unpack(P, Vals.data(), H.data());  // the dense Hessian
/// \endcode
struct HessianPattern {
  int Size;
  int NumValues;
  const int *Value;
  const signed char *Sign;

  /// False for a structural zero.
  MESHAD_HOST_DEVICE bool isNonzero(int I, int J) const {
    return Value[I * Size + J] >= 0;
  }
  /// The number of entries that are not structural zeros.
  int numNonzeros() const {
    int N = 0;
    for (int E = 0; E < Size * Size; ++E)
      N += Value[E] >= 0;
    return N;
  }
};

/// Expands the packed values \p Vals of a Hessian with pattern \p P into
/// the dense row-major \p H (P.Size x P.Size, every entry written).
template <class T>
MESHAD_HOST_DEVICE inline void unpack(const HessianPattern &P, const T *Vals,
                                      T *H) {
  for (int E = 0; E < P.Size * P.Size; ++E)
    H[E] = P.Value[E] < 0 ? T(0) : T(P.Sign[E]) * Vals[P.Value[E]];
}

/// The handle of a Hessian: execute(args..., H) writes the dense matrix;
/// execute_packed(args..., vals) writes only its pattern().NumValues unique
/// values; pattern() says where they go.
template <class FnPtr, class PackedPtr>
class HessianDerived : public Derived<FnPtr> {
public:
  constexpr HessianDerived(FnPtr Fn, const char *Name, const char *Code,
                           PackedPtr Packed, HessianPattern Pattern)
      : Derived<FnPtr>(Fn, Name, Code), Packed(Packed), Pattern(Pattern) {}

  const HessianPattern &pattern() const { return Pattern; }

  /// Calls the packed variant: the primal's arguments, then the array of
  /// pattern().NumValues values.
  template <class... Args> void execute_packed(Args &&...A) const {
    if (!Packed) {
      std::fprintf(stderr,
                   "meshad: '%s' is device code; call its _packed variant "
                   "from device code\n",
                   this->getName());
      std::abort();
    }
    Packed(std::forward<Args>(A)...);
  }
  PackedPtr getPackedFunctionPointer() const { return Packed; }

private:
  PackedPtr Packed;
  HessianPattern Pattern;
};

/// Forward mode: the derivative of \p F w.r.t. one parameter ("x", "1") or
/// one element of an array parameter ("p[2]"). For a whole array parameter
/// ("p") the derivative takes a direction array (a Jacobian-vector product).
/// The plugin completes the call with the generated handle.
template <class F, class FnPtr, bool K>
constexpr Derived<FnPtr, K> differentiate(F &&, const char *,
                                          Derived<FnPtr, K> Generated) {
  return Generated;
}

/// Options of a gradient request, the optional third argument of
/// meshad::gradient.
///
/// \code
///   // dy is only read: the gradient kernel leaves the output seeds as
///   // they are (PyTorch's and JAX's convention), which saves a store per
///   // output element and lets stencils gather their adjoints.
///   auto g = meshad::gradient(stencil, "x, y", meshad::KeepSeeds);
///   g.execute_kernel(grid, block, n, x, y, dx, dy);
/// \endcode
enum class GradientOption {
  /// The default: a selected array's adjoint is the seed on entry and the
  /// adjoint of its initial contents on exit (the seeds of elements the
  /// kernel overwrites become 0).
  ResetSeeds,
  /// The adjoints of kernel outputs that the kernel only writes, once per
  /// element, are read as seeds and left unchanged; the generated kernel is
  /// named with a "_keep_seeds" suffix.
  KeepSeeds = 1,
  /// Value and gradient from one call: the gradient returns what the primal
  /// returns and leaves the primal's outputs (y[i], atomicAdd energies) as
  /// the primal would; named with a "_with_value" suffix. Combines with
  /// KeepSeeds: `meshad::KeepSeeds | meshad::WithValue`.
  WithValue = 2,
  /// The caller launches the gradient after the primal kernel, with the
  /// same arguments, and what the primal stored is still there: a loop
  /// whose final state the primal stores (`finalT[pix] = T`, the trip
  /// count as `walked[pix] = stop - begin`) is not run again by the
  /// gradient's forward sweep, which reads that state back (issue 15);
  /// named with an "_after_primal" suffix. Kernels only; not with
  /// WithValue.
  AfterPrimal = 4
};
inline constexpr GradientOption ResetSeeds = GradientOption::ResetSeeds;
inline constexpr GradientOption KeepSeeds = GradientOption::KeepSeeds;
/// \code
///   auto g = meshad::gradient(energy, "x", meshad::WithValue);
///   double E = g.execute(x, n, dx);   // energy(x, n), dx += dE/dx
/// \endcode
inline constexpr GradientOption WithValue = GradientOption::WithValue;
/// \code
///   renderTiles<<<grid, block>>>(..., image, finalT, walked);
///   auto g = meshad::gradient(renderTiles, "means, image, finalT",
///                             meshad::AfterPrimal);
///   g.execute_kernel(grid, block, ..., image, finalT, walked, dmeans, ...);
/// \endcode
inline constexpr GradientOption AfterPrimal = GradientOption::AfterPrimal;
constexpr GradientOption operator|(GradientOption A, GradientOption B) {
  return static_cast<GradientOption>(static_cast<int>(A) |
                                     static_cast<int>(B));
}

/// How the gradient of an element kernel (an energy read through an index
/// array, docs/element-kernels.md) adds to the adjoint of the mapped array:
/// an option of meshad::gradient, alone or with the other options in any
/// order.
///
/// \code
///   auto g = meshad::gradient(springs, "x, E");  // Auto: atomic-free
///   auto a = meshad::gradient(springs, "x, E", meshad::KeepSeeds,
///                             meshad::ElementStrategy::Atomics);
/// \endcode
enum class ElementStrategy {
  /// The cost model's choice (the remark says which and why): gather by
  /// recomputation or two-phase slots where they apply, else atomics.
  Auto,
  /// Gather by recomputation: a kernel over the vertices (an error where it
  /// does not apply; named with a "_gather" suffix); the handle is a
  /// meshad::ElementGradient.
  Gather,
  /// Two-phase slots (an error where they do not apply); the handle is a
  /// meshad::ElementGradient.
  TwoPhase,
  /// One atomicAdd per contribution (not bitwise reproducible); the
  /// generated kernel is named with an "_atomics" suffix.
  Atomics,
  /// The cost model's cheapest of the three, atomics included: for callers
  /// that do not need bitwise reproducible gradients (the remark says
  /// which); named with a "_fastest" suffix.
  Fastest
};

namespace detail {
/// An option of meshad::gradient.
template <class T>
inline constexpr bool IsGradientOption =
    std::is_same_v<T, GradientOption> || std::is_same_v<T, ElementStrategy>;
template <class... Ts> struct Last;
template <class T> struct Last<T> {
  using type = T;
};
template <class T, class... Ts> struct Last<T, Ts...> : Last<Ts...> {};
/// The number of options among \p Ts.
template <class... Ts>
inline constexpr size_t NumGradientOptions = (0 + ... + size_t(IsGradientOption<Ts>));
} // namespace detail

/// Reverse mode (gradient): see the README for the status of this mode.
/// Options follow the spec in any order: meshad::KeepSeeds,
/// meshad::WithValue (or both: `meshad::KeepSeeds | meshad::WithValue`)
/// and one meshad::ElementStrategy.
///
/// \code
///   auto g = meshad::gradient(springs, "x, E", meshad::ElementStrategy::Gather,
///                             meshad::KeepSeeds);
/// \endcode
///
/// The plugin completes the call with the generated handle (its last
/// argument), which it returns: a meshad::Derived, or a
/// meshad::ElementGradient for an element kernel's atomic-free gradient.
/// Without the plugin the call is a compile-time error.
template <class F, class... Opts>
constexpr auto gradient(F &&, const char * = "", Opts... O) {
  constexpr size_t N = sizeof...(Opts);
  constexpr size_t Options = detail::NumGradientOptions<Opts...>;
  if constexpr (N > 0 && Options == N - 1) {
    return std::get<N - 1>(std::tuple<Opts...>(O...));
  } else {
    static_assert(detail::DependentBool<Options == N, F>,
                  "meshad::gradient: after the spec come options only: "
                  "meshad::KeepSeeds, meshad::WithValue, a "
                  "meshad::ElementStrategy");
#ifndef MESHAD_PLANNING
    static_assert(detail::AlwaysFalse<F>::value,
                  "meshad::gradient needs the meshad plugin "
                  "(-fplugin=libmeshad.so) or meshad-gen");
#endif
    return 0;
  }
}

/// Hessian-vector product of a scalar function or of a kernel's energy,
/// forward mode over reverse mode, no Hessian formed.
///
/// \code
///   // double f(const double *p, int n, double w);
///   auto h = meshad::hvp(f, "p, w");
///   h.execute(p, n, w, vp, vw, Hp, &Hw);  // Hp += H_pp vp + H_pw vw, ...
///   // __global__ void k(const double *x, double *E, int n): E[0] += ...
///   auto hk = meshad::hvp(k, "x");
///   hk.execute_kernel(grid, block, x, E, n, vx, Hx, seedE);
/// \endcode
template <class F, class FnPtr, bool K>
constexpr Derived<FnPtr, K> hvp(F &&, const char *,
                                Derived<FnPtr, K> Generated) {
  return Generated;
}

/// The dense Hessian of a scalar function (a host, device or host-device
/// function returning a floating-point value) w.r.t. the inputs in the
/// spec: scalars ("a, b"), ranges of arrays ("x[0:9]", the size of a
/// pointer's range must be given), whole fixed-size arrays, in any mix
/// ("p[0:3], w"). The generated `<f>_hessian(args..., H)` writes all k x k
/// entries of H, row-major, rows and columns in the spec's order (zeros
/// included). One function computes every column (forward over reverse
/// with one lane per selected input), structural zeros folded, the lower
/// triangle computed and mirrored.
///
/// \code
///   // double spring(const double *x, double k, double l0);
///   auto h = meshad::hessian(spring, "x[0:6]");
///   double H[36];
///   h.execute(x, k, l0, H);     // H[i * 6 + j] = d2 spring / dx_i dx_j
/// \endcode
template <class F, class FnPtr, class PackedPtr>
constexpr HessianDerived<FnPtr, PackedPtr>
hessian(F &&, const char *, HessianDerived<FnPtr, PackedPtr> Generated) {
  return Generated;
}

/// The option of meshad::hessian that asks for a sparse Hessian.
enum class HessianOption {
  /// The default: the dense k x k Hessian of the selected inputs.
  Dense,
  /// The Hessian of a loop that sums local terms over affine-indexed
  /// entries of the selected arrays, `n` known at run time only, as a CSR
  /// meshad::SparseMatrix, in O(n) time and memory
  /// (meshad/codegen/SparseLoop.h, docs/hessians.md).
  Sparse,
  /// The same Hessian of a __host__ __device__ function over device
  /// arrays, filled by generated kernels into a meshad::DeviceSparseMatrix
  /// (include <meshad/runtime/SparseLoopDevice.h>).
  SparseDevice
};
inline constexpr HessianOption Sparse = HessianOption::Sparse;
inline constexpr HessianOption SparseDevice = HessianOption::SparseDevice;

/// The sparse Hessian of a loop (meshad::Sparse): the generated
/// `<f>_hessian_sparse(args..., meshad::SparseMatrix<T> *H)` fills H in CSR.
///
/// \code
///   // double chain(const double *x, int n) { double s = 0;
///   //   for (int i = 1; i < n; ++i) s += (x[i-1] - x[i]) * (x[i-1] - x[i]);
///   //   return s; }
///   auto h = meshad::hessian(chain, "x", meshad::Sparse);
///   meshad::SparseMatrix<double> H;
///   h.execute(x, n, &H);   // n rows, 3n - 2 nonzeros
///   // meshad::SparseDevice: chain is __host__ __device__, dX device memory
///   auto hd = meshad::hessian(chain, "x", meshad::SparseDevice);
///   meshad::DeviceSparseMatrix<double> DH;
///   hd.execute(dX, n, &DH);
/// \endcode
template <class F, class FnPtr>
constexpr Derived<FnPtr> hessian(F &&, const char *, HessianOption,
                                 Derived<FnPtr> Generated) {
  return Generated;
}

/// Without the plugin, requests are compile-time errors. (The plugin's own
/// planning parse defines MESHAD_PLANNING to find the requests first.)
template <class F> constexpr int differentiate(F &&, const char * = "") {
#ifndef MESHAD_PLANNING
  static_assert(detail::AlwaysFalse<F>::value,
                "meshad::differentiate needs the meshad plugin "
                "(-fplugin=libmeshad.so) or meshad-gen");
#endif
  return 0;
}
template <class F> constexpr int hvp(F &&, const char * = "") {
#ifndef MESHAD_PLANNING
  static_assert(detail::AlwaysFalse<F>::value,
                "meshad::hvp needs the meshad plugin "
                "(-fplugin=libmeshad.so) or meshad-gen");
#endif
  return 0;
}
/// Parsed so that the plugin can say that element strategies (Gather,
/// TwoPhase) are for gradients only (an error at the option).
template <class F> constexpr int hvp(F &&, const char *, ElementStrategy) {
#ifndef MESHAD_PLANNING
  static_assert(detail::AlwaysFalse<F>::value,
                "meshad::hvp needs the meshad plugin "
                "(-fplugin=libmeshad.so) or meshad-gen");
#endif
  return 0;
}
template <class F>
constexpr int hessian(F &&, const char * = "",
                      HessianOption = HessianOption::Dense) {
#ifndef MESHAD_PLANNING
  static_assert(detail::AlwaysFalse<F>::value,
                "meshad::hessian needs the meshad plugin "
                "(-fplugin=libmeshad.so) or meshad-gen");
#endif
  return 0;
}

} // namespace meshad

// <meshad/ElementGradient.h> (the handle of atomic-free element gradients,
// with the incidence and Thrust's sort) is not included here: the plugin and
// meshad-gen include it after this header where an element gradient is
// requested, so other translation units do not compile it.

#endif // MESHAD_DIFFERENTIATOR_H
