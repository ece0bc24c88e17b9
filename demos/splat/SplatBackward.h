//===- demos/splat/SplatBackward.h - Hand-written gsplat-style backward ---===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The backward pass of renderTiles (Splat.h) written by hand the way gsplat
/// writes it, as the reference that meshad's generated gradient is measured
/// against:
///
/// - every thread of a tile walks the tile's list back to front, in step
///   (the block starts at the largest number of entries any of its pixels
///   walked; a pixel contributes zero above its own count), the entries
///   loaded into shared memory in batches of one per thread;
/// - each pixel undoes the transmittance recurrence, T_i = T_{i+1} /
///   (1 - alpha_i) (alpha <= 0.99, so the division is safe), starting from
///   the final T that the forward stored, and keeps the colour behind the
///   entry, so nothing per entry is stored;
/// - the nine per-Gaussian gradients of one entry are summed over the warp
///   with shuffles and added by one atomicAdd per warp (warps whose pixels
///   all skip the entry add nothing).
///
/// \code
///   renderTilesBackward<<<tileGrid(W, H), dim3(16, 16)>>>(W, H, Ranges, Ids,
///       Means, Conics, Colours, Opacities, FinalT, Walked, DImage, DMeans,
///       DConics, DColours, DOpacities);        // adds into the D* arrays
/// \endcode
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_DEMOS_SPLAT_SPLATBACKWARD_H
#define MESHAD_DEMOS_SPLAT_SPLATBACKWARD_H

#include "Splat.h"

namespace splat {

constexpr int BlockThreads = SplatTile * SplatTile;
constexpr unsigned FullMask = 0xffffffffu;

/// One entry of a tile's list as the batch holds it in shared memory.
struct Entry {
  int Id;
  Real Mx, My, A, B, C, Opacity, R, G, Bl;
};

/// Sum over the warp; lane 0 holds the result.
__device__ inline Real warpSum(Real V) {
  for (int Offset = 16; Offset > 0; Offset /= 2)
    V += __shfl_down_sync(FullMask, V, Offset);
  return V;
}

/// The nine gradients of one entry at one pixel.
struct EntryGrad {
  Real Mx = 0, My = 0, A = 0, B = 0, C = 0, Opacity = 0, R = 0, G = 0,
       Bl = 0;
};

/// Undoes one entry of a pixel's blend: updates the transmittance T (to the
/// value before the entry) and the colour behind it (Rb, Gb, Bb), and returns
/// the entry's gradients for the pixel's seed (Vr, Vg, Vb). Returns false
/// when the forward skipped the entry.
__device__ inline bool undoEntry(const Entry &E, Real Px, Real Py, Real Vr,
                                 Real Vg, Real Vb, Real &T, Real &Rb,
                                 Real &Gb, Real &Bb, EntryGrad &D) {
  Real Dx = E.Mx - Px, Dy = E.My - Py;
  Real Power = Real(-0.5) * (E.A * Dx * Dx + E.C * Dy * Dy) - E.B * Dx * Dy;
  if (Power > 0)
    return false;
  Real Gauss = exp(Power);
  Real Raw = E.Opacity * Gauss;
  Real Alpha = fmin(Real(0.99), Raw);
  if (Alpha < Real(1.0 / 255))
    return false;
  Real Ra = 1 / (1 - Alpha);
  T *= Ra; // the transmittance in front of the entry
  Real Weight = Alpha * T;
  D.R = Weight * Vr, D.G = Weight * Vg, D.Bl = Weight * Vb;
  // dC/dalpha = c T - (colour behind) / (1 - alpha).
  Real DAlpha = (E.R * T - Rb * Ra) * Vr + (E.G * T - Gb * Ra) * Vg +
                (E.Bl * T - Bb * Ra) * Vb;
  Rb += E.R * Weight, Gb += E.G * Weight, Bb += E.Bl * Weight;
  if (Raw < Real(0.99)) { // the clamp passes no gradient
    D.Opacity = Gauss * DAlpha;
    Real DPower = Raw * DAlpha;
    D.A = Real(-0.5) * Dx * Dx * DPower;
    D.C = Real(-0.5) * Dy * Dy * DPower;
    D.B = -Dx * Dy * DPower;
    D.Mx = -(E.A * Dx + E.B * Dy) * DPower;
    D.My = -(E.C * Dy + E.B * Dx) * DPower;
  }
  return true;
}

/// Adds the warp's sums of \p D into the gradient arrays (lane 0).
__device__ inline void addWarpSums(const EntryGrad &D, int Id, Real *DMeans,
                                   Real *DConics, Real *DColours,
                                   Real *DOpacities) {
  Real S[9] = {D.Mx, D.My, D.A, D.B, D.C, D.R, D.G, D.Bl, D.Opacity};
  for (int J = 0; J < 9; ++J)
    S[J] = warpSum(S[J]);
  if ((threadIdx.y * SplatTile + threadIdx.x) % 32 != 0)
    return;
  atomicAdd(&DMeans[2 * Id], S[0]);
  atomicAdd(&DMeans[2 * Id + 1], S[1]);
  atomicAdd(&DConics[3 * Id], S[2]);
  atomicAdd(&DConics[3 * Id + 1], S[3]);
  atomicAdd(&DConics[3 * Id + 2], S[4]);
  atomicAdd(&DColours[3 * Id], S[5]);
  atomicAdd(&DColours[3 * Id + 1], S[6]);
  atomicAdd(&DColours[3 * Id + 2], S[7]);
  atomicAdd(&DOpacities[Id], S[8]);
}

/// Loads entry K of the list (or nothing above End) into the batch.
__device__ inline void loadEntry(int K, const int *Ids, const Real *Means,
                                 const Real *Conics, const Real *Colours,
                                 const Real *Opacities, Entry &E) {
  int Id = Ids[K];
  E.Id = Id;
  E.Mx = Means[2 * Id], E.My = Means[2 * Id + 1];
  E.A = Conics[3 * Id], E.B = Conics[3 * Id + 1], E.C = Conics[3 * Id + 2];
  E.Opacity = Opacities[Id];
  E.R = Colours[3 * Id], E.G = Colours[3 * Id + 1], E.Bl = Colours[3 * Id + 2];
}

/// The backward of renderTiles: adds dL/d(means, conics, colours,
/// opacities) for the seed \p DImage of the image. Launch as renderTiles.
__global__ void __launch_bounds__(BlockThreads)
    renderTilesBackward(int Width, int Height, const int *Ranges,
                        const int *Ids, const Real *Means, const Real *Conics,
                        const Real *Colours, const Real *Opacities,
                        const Real *FinalT, const int *Walked,
                        const Real *DImage, Real *DMeans, Real *DConics,
                        Real *DColours, Real *DOpacities) {
  __shared__ Entry Batch[BlockThreads];
  __shared__ int BlockEnd;
  const int Tid = threadIdx.y * SplatTile + threadIdx.x;
  const int Px = blockIdx.x * SplatTile + threadIdx.x;
  const int Py = blockIdx.y * SplatTile + threadIdx.y;
  const bool Inside = Px < Width && Py < Height;
  const int Tile = blockIdx.y * gridDim.x + blockIdx.x;
  const int Begin = Ranges[2 * Tile];
  const int Pix = Inside ? Py * Width + Px : 0;
  const int End = Inside ? Begin + Walked[Pix] : Begin;
  Real T = Inside ? FinalT[Pix] : 1;
  Real Vr = 0, Vg = 0, Vb = 0;
  if (Inside)
    Vr = DImage[3 * Pix], Vg = DImage[3 * Pix + 1], Vb = DImage[3 * Pix + 2];
  Real Rb = 0, Gb = 0, Bb = 0;
  if (Tid == 0)
    BlockEnd = Begin;
  __syncthreads();
  atomicMax(&BlockEnd, End);
  __syncthreads();
  for (int Top = BlockEnd; Top > Begin; Top -= BlockThreads) {
    int Lo = max(Begin, Top - BlockThreads);
    if (Lo + Tid < Top)
      loadEntry(Lo + Tid, Ids, Means, Conics, Colours, Opacities,
                Batch[Tid]);
    __syncthreads();
    for (int K = Top - 1; K >= Lo; --K) {
      EntryGrad D;
      bool Hit = K < End && undoEntry(Batch[K - Lo], Px, Py, Vr, Vg, Vb, T,
                                      Rb, Gb, Bb, D);
      if (__any_sync(FullMask, Hit))
        addWarpSums(D, Batch[K - Lo].Id, DMeans, DConics, DColours,
                    DOpacities);
    }
    __syncthreads();
  }
}

} // namespace splat

#endif // MESHAD_DEMOS_SPLAT_SPLATBACKWARD_H
