//===- meshad/cpu/BlockScheduler.h - Blocks of fibers -----------*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Runs a grid on the CPU: the blocks one after another, the threads of a
/// block as cooperative fibers (ucontext) of the launching OS thread, each
/// with its own stack. A fiber runs until it returns or waits in a barrier
/// (__syncthreads, or a warp function among the lanes of its warp); when no
/// fiber can run, the scheduler releases every complete warp group, else the
/// block barrier, else reports the deadlock (a barrier some threads never
/// reach) and aborts. Fibers always run in thread order, so runs are
/// deterministic. Also defines the built-ins threadIdx, blockIdx, blockDim,
/// gridDim (per OS thread) and warpSize. Part of meshad/cpu/CudaOnCpu.h.
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_CPU_BLOCKSCHEDULER_H
#define MESHAD_CPU_BLOCKSCHEDULER_H

// A system header for the meshad plugin: the emulated CUDA API (atomicAdd,
// make_float3...) stays an intrinsic instead of user code to differentiate.
#if defined(__clang__)
#pragma clang system_header
#endif

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <vector>

#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

// The built-in variables, global as the meshad plugin expects them. The
// scheduler sets threadIdx before it switches to a fiber.
inline thread_local uint3 threadIdx;
inline thread_local uint3 blockIdx;
inline thread_local dim3 blockDim;
inline thread_local dim3 gridDim;
inline constexpr int warpSize = 32;

/// The stack of one emulated thread, in bytes (the environment variable
/// MESHAD_CPU_STACK_KIB overrides it at run time). Stacks are reserved, not
/// committed: a page costs memory once touched. A guard page below each
/// stack turns an overflow into a segmentation fault.
#ifndef MESHAD_CPU_STACK_BYTES
#define MESHAD_CPU_STACK_BYTES (256 * 1024)
#endif

namespace meshad::cpu::detail {

/// Prints "meshad-cpu: error: <message>" and aborts, as a GPU would hang or
/// trap.
[[noreturn]] __attribute__((format(printf, 1, 2))) inline void
fatal(const char *Fmt, ...) {
  std::fflush(stdout);
  std::fputs("meshad-cpu: error: ", stderr);
  va_list Args;
  va_start(Args, Fmt);
  std::vfprintf(stderr, Fmt, Args);
  va_end(Args);
  std::fputc('\n', stderr);
  std::fflush(stderr);
  std::abort();
}

/// The stacks of the fibers of one OS thread, reused by every block.
class StackPool {
public:
  StackPool() : PageBytes(size_t(sysconf(_SC_PAGESIZE))) {
    size_t Requested = MESHAD_CPU_STACK_BYTES;
    if (const char *Kib = std::getenv("MESHAD_CPU_STACK_KIB"))
      if (long V = std::strtol(Kib, nullptr, 10); V > 0)
        Requested = size_t(V) * 1024;
    Bytes = (Requested + PageBytes - 1) / PageBytes * PageBytes;
  }
  StackPool(const StackPool &) = delete;
  StackPool &operator=(const StackPool &) = delete;
  ~StackPool() {
    for (char *S : Stacks)
      munmap(S, Bytes + PageBytes);
  }

  /// The lowest address of stack \p I, stackBytes() long.
  char *get(size_t I) {
    while (Stacks.size() <= I)
      Stacks.push_back(map());
    return Stacks[I] + PageBytes;
  }
  size_t stackBytes() const { return Bytes; }

private:
  char *map() {
    void *P = mmap(nullptr, Bytes + PageBytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (P == MAP_FAILED)
      fatal("cannot map a %zu-byte fiber stack", Bytes);
    mprotect(P, PageBytes, PROT_NONE);
    return static_cast<char *>(P);
  }

  size_t PageBytes;
  size_t Bytes;
  std::vector<char *> Stacks;
};

enum class FiberState : unsigned char {
  Ready,
  AtBlockBarrier,
  AtWarpBarrier,
  Done
};

/// What a lane does once its warp group meets.
enum class WarpOp : unsigned char { Sync, Shuffle, Vote };

/// One emulated thread. Its context is initialized once and remade for
/// every block, so a Fiber never moves.
struct Fiber {
  ucontext_t Context;
  uint3 Index;
  FiberState State = FiberState::Done;
  WarpOp Op = WarpOp::Sync;
  /// The barrier function waited in, for diagnostics.
  const char *Function = "";
  /// The lanes of the warp group (those beyond the block removed).
  unsigned Mask = 0;
  /// The lane a shuffle reads.
  unsigned SrcLane = 0;
  /// The value (or predicate) this thread contributes, and its result.
  unsigned long long Send = 0, Recv = 0;
};

class BlockRunner;
inline BlockRunner &runner();

/// Runs the threads of one block as fibers; one per OS thread (runner()).
class BlockRunner {
public:
  using Body = void (*)(const void *);

  BlockRunner() = default;
  BlockRunner(const BlockRunner &) = delete;
  BlockRunner &operator=(const BlockRunner &) = delete;

  /// Runs block blockIdx (blockDim, gridDim set) with every thread calling
  /// \p Fn(\p Payload); \p Kernel names it in diagnostics.
  void run(Body Fn, const void *Payload, const char *Kernel) {
    Count = blockDim.x * blockDim.y * blockDim.z;
    prepare();
    this->Fn = Fn;
    this->Payload = Payload;
    this->Kernel = Kernel ? Kernel : "<kernel>";
    Running = true;
    DoneCount = 0;
    while (true) {
      for (unsigned I = 0; I < Count; ++I)
        if (Fibers[I]->State == FiberState::Ready)
          resume(I);
      if (DoneCount == Count)
        break;
      if (!releaseWarpGroups())
        releaseBlockBarrier();
    }
    Running = false;
  }

  bool running() const { return Running; }

  /// Waits until every thread of the block called a __syncthreads function;
  /// returns how many of them passed a non-zero \p Predicate.
  unsigned syncThreads(int Predicate, const char *Function) {
    Fiber &F = *Fibers[Current];
    F.State = FiberState::AtBlockBarrier;
    F.Function = Function;
    F.Send = Predicate != 0;
    yield();
    return unsigned(F.Recv);
  }

  /// Waits until every lane of \p Mask in this thread's warp called a warp
  /// function with the same mask; returns the value of lane \p SrcLane
  /// (Shuffle; the own value when that lane is not in the mask) or the
  /// ballot of the non-zero \p Send values (Vote).
  unsigned long long warpExchange(WarpOp Op, unsigned Mask, unsigned SrcLane,
                                  unsigned long long Send,
                                  const char *Function) {
    Fiber &F = *Fibers[Current];
    unsigned Lane = Current % 32;
    if (!(Mask >> Lane & 1))
      fatal("%s in kernel '%s': thread (%u,%u,%u) of block (%u,%u,%u), lane "
            "%u, is not in its mask 0x%08x",
            Function, Kernel, F.Index.x, F.Index.y, F.Index.z, blockIdx.x,
            blockIdx.y, blockIdx.z, Lane, Mask);
    F.State = FiberState::AtWarpBarrier;
    F.Op = Op;
    F.Function = Function;
    F.Mask = Mask & existingLanes(Current - Lane);
    F.SrcLane = SrcLane;
    F.Send = Send;
    yield();
    return F.Recv;
  }

  /// The lanes of the current thread's warp that exist in the block.
  unsigned warpLanes() const { return existingLanes(Current & ~31u); }

  /// The lanes of the current warp that have not exited.
  unsigned activeLanes() const {
    unsigned Base = Current & ~31u, Mask = 0;
    for (unsigned J = 0; Base + J < Count && J < 32; ++J)
      if (Fibers[Base + J]->State != FiberState::Done)
        Mask |= 1u << J;
    return Mask;
  }

  /// The dynamic shared memory of the running launch.
  unsigned char *DynamicShared = nullptr;
  size_t DynamicSharedBytes = 0;

private:
  static void fiberMain() {
    BlockRunner &R = runner();
    R.Fn(R.Payload);
    Fiber &F = *R.Fibers[R.Current];
    F.State = FiberState::Done;
    ++R.DoneCount;
    swapcontext(&F.Context, &R.Main);
    __builtin_unreachable();
  }

  void prepare() {
    while (Fibers.size() < Count) {
      Fibers.push_back(std::make_unique<Fiber>());
      getcontext(&Fibers.back()->Context);
    }
    for (unsigned I = 0; I < Count; ++I) {
      Fiber &F = *Fibers[I];
      F.Index = {I % blockDim.x, I / blockDim.x % blockDim.y,
                 I / (blockDim.x * blockDim.y)};
      F.State = FiberState::Ready;
      F.Context.uc_stack.ss_sp = Stacks.get(I);
      F.Context.uc_stack.ss_size = Stacks.stackBytes();
      F.Context.uc_link = nullptr;
      makecontext(&F.Context, &fiberMain, 0);
    }
  }

  void resume(unsigned I) {
    Current = I;
    threadIdx = Fibers[I]->Index;
    swapcontext(&Main, &Fibers[I]->Context);
  }

  void yield() { swapcontext(&Fibers[Current]->Context, &Main); }

  unsigned existingLanes(unsigned Base) const {
    return Count - Base >= 32 ? ~0u : (1u << (Count - Base)) - 1;
  }

  /// True when every lane of \p Mask of the warp at \p Base waits in a warp
  /// function with that mask.
  bool groupComplete(unsigned Base, unsigned Mask) const {
    for (unsigned J = 0; J < 32; ++J)
      if (Mask >> J & 1) {
        const Fiber &G = *Fibers[Base + J];
        if (G.State != FiberState::AtWarpBarrier || G.Mask != Mask)
          return false;
      }
    return true;
  }

  void releaseGroup(unsigned Base, unsigned Mask) {
    unsigned Ballot = 0;
    const Fiber &First = *Fibers[Base + unsigned(__builtin_ctz(Mask))];
    for (unsigned J = 0; J < 32; ++J)
      if (Mask >> J & 1) {
        const Fiber &G = *Fibers[Base + J];
        if (G.Op != First.Op)
          fatal("kernel '%s': lanes of warp %u of block (%u,%u,%u) meet in "
                "different warp functions (%s and %s)",
                Kernel, Base / 32, blockIdx.x, blockIdx.y, blockIdx.z,
                First.Function, G.Function);
        Ballot |= unsigned(G.Send != 0) << J;
      }
    for (unsigned J = 0; J < 32; ++J)
      if (Mask >> J & 1) {
        Fiber &G = *Fibers[Base + J];
        if (G.Op == WarpOp::Shuffle)
          G.Recv =
              Mask >> G.SrcLane & 1 ? Fibers[Base + G.SrcLane]->Send : G.Send;
        else
          G.Recv = Ballot;
        G.State = FiberState::Ready;
      }
  }

  bool releaseWarpGroups() {
    bool Released = false;
    for (unsigned I = 0; I < Count; ++I) {
      const Fiber &F = *Fibers[I];
      if (F.State == FiberState::AtWarpBarrier &&
          groupComplete(I & ~31u, F.Mask)) {
        releaseGroup(I & ~31u, F.Mask);
        Released = true;
      }
    }
    return Released;
  }

  void releaseBlockBarrier() {
    unsigned Waiting = 0, Passed = 0;
    for (unsigned I = 0; I < Count; ++I)
      if (Fibers[I]->State == FiberState::AtBlockBarrier) {
        ++Waiting;
        Passed += unsigned(Fibers[I]->Send);
      }
    if (Waiting != Count)
      diagnoseDeadlock(Waiting);
    for (unsigned I = 0; I < Count; ++I) {
      Fibers[I]->Recv = Passed;
      Fibers[I]->State = FiberState::Ready;
    }
  }

  /// Nothing can run and no barrier can be released: a barrier that some
  /// threads never reach. Names one waiting thread and one culprit.
  [[noreturn]] void diagnoseDeadlock(unsigned Waiting) const {
    for (unsigned I = 0; I < Count; ++I) {
      const Fiber &F = *Fibers[I];
      if (F.State != FiberState::AtWarpBarrier)
        continue;
      unsigned Base = I & ~31u;
      for (unsigned J = 0; J < 32; ++J) {
        const Fiber &G = *Fibers[Base + J];
        if (!(F.Mask >> J & 1) ||
            (G.State == FiberState::AtWarpBarrier && G.Mask == F.Mask))
          continue;
        fatal("warp divergence in kernel '%s', block (%u,%u,%u): thread "
              "(%u,%u,%u) (lane %u) waits in %s with mask 0x%08x, but thread "
              "(%u,%u,%u) (lane %u) %s%s; on a GPU this hangs or is "
              "undefined behaviour",
              Kernel, blockIdx.x, blockIdx.y, blockIdx.z, F.Index.x, F.Index.y,
              F.Index.z, I - Base, F.Function, F.Mask, G.Index.x, G.Index.y,
              G.Index.z, J,
              G.State == FiberState::Done ? "has exited without reaching it"
                                          : "waits in ",
              G.State == FiberState::Done ? "" : G.Function);
      }
    }
    const Fiber *Waiter = nullptr, *Culprit = nullptr;
    for (unsigned I = 0; I < Count; ++I) {
      const Fiber &F = *Fibers[I];
      if (F.State == FiberState::AtBlockBarrier && !Waiter)
        Waiter = &F;
      if (F.State == FiberState::Done && !Culprit)
        Culprit = &F;
    }
    if (!Waiter || !Culprit)
      fatal("kernel '%s': internal scheduler error", Kernel);
    fatal("barrier divergence in kernel '%s', block (%u,%u,%u): thread "
          "(%u,%u,%u) waits in %s, but thread (%u,%u,%u) has exited without "
          "reaching it (%u of %u threads wait); on a GPU this hangs or is "
          "undefined behaviour",
          Kernel, blockIdx.x, blockIdx.y, blockIdx.z, Waiter->Index.x,
          Waiter->Index.y, Waiter->Index.z, Waiter->Function, Culprit->Index.x,
          Culprit->Index.y, Culprit->Index.z, Waiting, Count);
  }

  std::vector<std::unique_ptr<Fiber>> Fibers;
  StackPool Stacks;
  ucontext_t Main;
  unsigned Count = 0, Current = 0, DoneCount = 0;
  Body Fn = nullptr;
  const void *Payload = nullptr;
  const char *Kernel = "";
  bool Running = false;
};

/// The block runner of this OS thread.
inline BlockRunner &runner() {
  static thread_local BlockRunner Runner;
  return Runner;
}

/// The runner of the running kernel; aborts when \p Function (a device
/// function) is called outside of a kernel.
inline BlockRunner &activeRunner(const char *Function) {
  BlockRunner &R = runner();
  if (!R.running())
    fatal("%s called outside of a kernel", Function);
  return R;
}

/// True when CUDA accepts this launch configuration (compute capability
/// 9.0 limits).
inline bool validConfiguration(dim3 Grid, dim3 Block, size_t SharedBytes) {
  unsigned long long Threads = (unsigned long long)Block.x * Block.y * Block.z;
  return Grid.x >= 1 && Grid.x <= 0x7fffffffu && Grid.y >= 1 &&
         Grid.y <= 65535 && Grid.z >= 1 && Grid.z <= 65535 && Threads >= 1 &&
         Block.x <= 1024 && Block.y <= 1024 && Block.z <= 64 &&
         Threads <= 1024 && SharedBytes <= 227 * 1024;
}

/// Runs every block of the grid, in order x, then y, then z.
inline cudaError_t runGrid(dim3 Grid, dim3 Block, size_t SharedBytes,
                           BlockRunner::Body Fn, const void *Payload,
                           const char *Kernel) {
  if (!validConfiguration(Grid, Block, SharedBytes))
    return record(cudaErrorInvalidConfiguration);
  BlockRunner &R = runner();
  if (R.running())
    fatal("kernel '%s' launched from device code: dynamic parallelism is not "
          "emulated",
          Kernel ? Kernel : "<kernel>");
  size_t Bytes = SharedBytes ? SharedBytes : 16;
  auto *Shared = static_cast<unsigned char *>(
      ::operator new(Bytes, std::align_val_t(256)));
  R.DynamicShared = Shared;
  R.DynamicSharedBytes = SharedBytes;
  gridDim = Grid;
  blockDim = Block;
  for (unsigned Z = 0; Z < Grid.z; ++Z)
    for (unsigned Y = 0; Y < Grid.y; ++Y)
      for (unsigned X = 0; X < Grid.x; ++X) {
        blockIdx = {X, Y, Z};
        // Shared memory starts undefined: 0xFF bytes are NaN as floats.
        std::memset(Shared, 0xFF, Bytes);
        R.run(Fn, Payload, Kernel);
      }
  R.DynamicShared = nullptr;
  R.DynamicSharedBytes = 0;
  ::operator delete(Shared, std::align_val_t(256));
  return cudaSuccess;
}

} // namespace meshad::cpu::detail

#endif // MESHAD_CPU_BLOCKSCHEDULER_H
