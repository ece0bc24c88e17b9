//===- GPU/AccumulationPolicy.h - How adjoints are added --------*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Every `adjoint += contribution` of reverse mode goes through this one
/// policy point. It decides, per store, whether other threads may add to the
/// same adjoint concurrently:
/// - adjoints of locals, and anything in host-only code: plain +=;
/// - adjoints of kernel array parameters: as the ownership analysis decides:
///   plain += for thread-exclusive arrays; the thread's slots of the block's
///   shared-memory tile for tile-exclusive ones (meshad/codegen/AdjointTile.h,
///   written out at the end of the kernel); warp-aggregated atomics (meshad/codegen/WarpAtomics.h)
///   for uniform but symbolic addresses; atomicAdd otherwise;
/// - adjoints in __shared__ memory, of kernels' scalar parameters, and of
///   device functions' array parameters: atomicAdd;
/// - in __host__ __device__ code, meshad::atomicAccumulate (atomic on the
///   device, plain on the host).
/// With remarks enabled, each adjoint store location gets one remark saying
/// what it got and why.
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_GPU_ACCUMULATIONPOLICY_H
#define MESHAD_GPU_ACCUMULATIONPOLICY_H

#include "GPU/Ownership.h"
#include "IR/Builder.h"
#include "Support/Diagnostics.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallPtrSet.h"

#include <set>
#include <string>
#include <vector>

namespace meshad {

/// How one adjoint store is written.
enum class AccumulationKind {
  Plain,
  Atomic,
  HostDeviceAtomic,
  /// meshad::warpAtomicAdd: one atomic per warp and address.
  WarpAtomic,
  /// meshad::tileAdd: the thread's slot of the block's shared-memory tile.
  Tile
};

/// Decides and emits adjoint accumulations for one derived function.
class AccumulationPolicy {
public:
  AccumulationPolicy(ir::CudaTarget Target, DiagnosticSink &Diags)
      : Target(Target), Diags(Diags) {}

  /// Declares that \p V, an adjoint parameter, points to memory private to
  /// the calling thread (a pullback's scalar adjoints point to the caller's
  /// locals).
  void addThreadPrivate(const ir::Var *V) { Private.insert(V); }
  /// Declares \p V, a pointer local of device code, to point into memory
  /// that other threads may share (a parameter's, __shared__ or global
  /// memory, what a call returns): adds through it are atomic.
  void addSharedPointer(const ir::Var *V) { SharedPointers.insert(V); }

  /// Records the ownership of the array behind the adjoint parameter \p V
  /// of a kernel, whose primal parameter is named \p PrimalName.
  void setOwnership(const ir::Var *V, const OwnershipResult &R,
                    const std::string &PrimalName);
  /// Declares \p V a thread's partial sum of the adjoint of a kernel's
  /// scalar parameter \p PrimalName (uniform: every thread adds to it),
  /// reduced per block at the end of the kernel.
  void addBlockSum(const ir::Var *V, const std::string &PrimalName) {
    BlockSums.insert(V);
    PrimalNames[V] = PrimalName;
  }

  /// Routes adjoint stores to element \p Index of the adjoint array \p V
  /// (uniform: every thread adds to it) into the thread's partial sum
  /// \p Part, reduced per block at the end of the kernel.
  void addUniformElement(const ir::Var *V, long long Index,
                         const ir::Var *Part) {
    UniformElements[V] = {Index, Part};
    BlockSums.insert(Part);
  }

  /// Routes the stores into the tile-exclusive adjoint array \p V (ownership
  /// \p R) into the block's shared tile \p Tile.
  void addTile(const ir::Var *V, const ir::Var *Tile, const OwnershipResult &R) {
    Tiles[V] = {Tile, R};
  }

  /// "meshad::<Name><c, lo, hi>": a function of meshad/codegen/AdjointTile.h for
  /// the tile of an array with ownership \p R.
  static std::string tileFunction(const char *Name, const OwnershipResult &R);

  /// The slots of the shared-memory tile for a tile-exclusive array of
  /// \p Elem (ownership \p R): one row per offset, one column per thread
  /// (up to 1024, as many as fit in what \p UsedBytes leaves of the
  /// kernel's budget, which grows by the tile's size; larger blocks fall
  /// back to atomics at run time). 0, with the reason in \p WhyNot, when
  /// fewer than MinTileColumns threads would fit.
  static unsigned long long tileSlots(const ir::Type *Elem,
                                      const OwnershipResult &R,
                                      ir::TypeContext &Types,
                                      unsigned long long &UsedBytes,
                                      std::string &WhyNot);
  /// Tiles are sized for the largest CUDA block.
  static constexpr unsigned MaxBlockThreads = 1024;
  /// At most this much static shared memory goes to tiles per kernel.
  static constexpr unsigned long long MaxTileBytes = 24 * 1024;
  /// A tile narrower than this many threads is not worth it.
  static constexpr unsigned long long MinTileColumns = 128;

  /// Ignore ownership: every store that other threads can reach is atomic.
  void setForceAtomics(bool Force) { ForceAtomics = Force; }
  bool isForcingAtomics() const { return ForceAtomics; }

  /// Names the primal parameter whose adjoint \p V holds (for remarks).
  void setPrimalName(const ir::Var *V, const std::string &Name) {
    PrimalNames[V] = Name;
  }

  /// How to add to an adjoint whose storage is rooted at \p Root (a local,
  /// shared array or parameter of the derived function), and why.
  AccumulationKind decide(const ir::Var *Root, std::string *Why = nullptr) const;

  /// Emits the remarks of the tile stores, which wait until the kernel is
  /// generated: \p Gathered when the gather form replaced the tiles (see
  /// GPU/GatherTiles), else \p WhyNot says why it did not.
  void finishTileRemarks(bool Gathered, const std::string &WhyNot);

  /// Appends `Adjoint += Value` in the decided form to \p Out; \p Loc is the
  /// primal access the store stands for (for remarks). A vector adjoint
  /// (double3) is added component by component; pass a cheap \p Value.
  void emit(ir::IRBuilder &B, const ir::Expr *Adjoint, const ir::Var *Root,
            const ir::Expr *Value, ir::BlockStmt *Out,
            clang::SourceLocation Loc);

private:
  struct Owned {
    OwnershipResult Result;
    std::string Name;
  };
  ir::CudaTarget Target;
  DiagnosticSink &Diags;
  bool ForceAtomics = false;
  llvm::SmallPtrSet<const ir::Var *, 4> Private;
  llvm::SmallPtrSet<const ir::Var *, 4> SharedPointers;
  llvm::SmallPtrSet<const ir::Var *, 4> BlockSums;
  llvm::DenseMap<const ir::Var *, Owned> Ownership;
  llvm::DenseMap<const ir::Var *, std::string> PrimalNames;
  llvm::DenseMap<const ir::Var *, std::pair<long long, const ir::Var *>>
      UniformElements;
  /// The remarked (location, access) pairs.
  std::set<std::pair<unsigned, std::string>> Remarked;
  struct PendingRemark {
    const ir::Var *Root;
    std::string Why;
    clang::SourceLocation Loc;
  };
  std::vector<PendingRemark> PendingTiles;
  struct TileInfo {
    const ir::Var *Tile;
    OwnershipResult Result;
  };
  llvm::DenseMap<const ir::Var *, TileInfo> Tiles;

  /// The remark for one adjoint store location and primal access \p Access
  /// (its source text, "" when unknown), once; an atomic store of a shared
  /// array also quotes the access and says how to make it atomic-free.
  void remark(const ir::Var *Root, AccumulationKind K, const std::string &Why,
              clang::SourceLocation Loc, const std::string &Access);
  /// The primal access that the adjoint store \p Adjoint stands for, as
  /// source text (`x[3 * ia + 1]`), or "".
  std::string primalAccess(const ir::Expr *Adjoint, const ir::Var *Root) const;
  /// `meshad::tileAdd<c, lo, hi>(tile, adjoint, index, v)`, or null when
  /// \p Adjoint is not an element of the tiled array.
  const ir::Expr *tileAdd(ir::IRBuilder &B, const ir::Expr *Adjoint,
                          const ir::Var *Root, const ir::Expr *Value,
                          const TileInfo &T) const;
};

} // namespace meshad

#endif // MESHAD_GPU_ACCUMULATIONPOLICY_H
