#!/usr/bin/env python3
# ===- benchmarks/splat/splat_torch.py - The rasterizer in PyTorch --------===#
#
# The same rasterizer as demos/splat/Splat.h's renderTiles, written with
# tensors, differentiated by autograd: each pixel blends its tile's sorted
# list front to back (alpha = min(0.99, opacity exp(power)), entries with
# power > 0 or alpha < 1/255 skipped, stopping before the entry that would
# take T below 1e-4). The lists, the scene and the image seed come from
# `splat-bench --export=DIR` (float64 files), which also wrote the
# hand-written backward's gradient: the autograd gradient is checked
# against it (relative L2 error). Tiles are processed in chunks (lists
# padded to the chunk's longest); the time is the sum over chunks of
# loss.backward() (CUDA events), median over --reps runs after a warm-up.
# Prints one table row like splat-bench's.
#
#   python3 splat_torch.py DIR [--reps=N]
#
# ===----------------------------------------------------------------------===#
import os
import statistics
import sys

import numpy as np
import torch

TILE = 16


def load(Dir):
    W, H, N, NumTiles, NumEntries, Dtype = open(os.path.join(Dir, "meta.txt")).read().split()
    F = lambda Name: np.fromfile(os.path.join(Dir, Name + ".bin"), dtype=np.float64)
    I = lambda Name: np.fromfile(os.path.join(Dir, Name + ".bin"), dtype=np.int32)
    return dict(W=int(W), H=int(H), N=int(N), tiles=int(NumTiles), dtype=Dtype,
                means=F("means").reshape(-1, 2), conics=F("conics").reshape(-1, 3),
                colours=F("colours").reshape(-1, 3), opacities=F("opacities"),
                seed=F("seed").reshape(-1, 3), ranges=I("ranges").reshape(-1, 2),
                ids=I("ids"), ref=[F("dmeans"), F("dconics"), F("dcolours"), F("dopacities")])


def chunks(S, Budget=1 << 27):
    """Lists of tiles whose padded work stays under Budget elements."""
    Lengths = S["ranges"][:, 1] - S["ranges"][:, 0]
    Out, Cur, Longest = [], [], 0
    for T in range(S["tiles"]):
        L = max(int(Lengths[T]), 1)
        if Cur and TILE * TILE * max(Longest, L) * (len(Cur) + 1) > Budget:
            Out.append(Cur)
            Cur, Longest = [], 0
        Cur.append(T)
        Longest = max(Longest, L)
    if Cur:
        Out.append(Cur)
    return Out


def prepare(S, Tiles, Dev):
    """The padded lists and pixel coordinates of a chunk of tiles."""
    TilesX = (S["W"] + TILE - 1) // TILE
    R = S["ranges"][Tiles]
    L = max(int((R[:, 1] - R[:, 0]).max()), 1)
    Ids = np.zeros((len(Tiles), L), dtype=np.int64)
    Valid = np.zeros((len(Tiles), L), dtype=bool)
    for J, (B, E) in enumerate(R):
        Ids[J, : E - B] = S["ids"][B:E]
        Valid[J, : E - B] = True
    Ty, Tx = np.divmod(np.asarray(Tiles), TilesX)
    Ly, Lx = np.divmod(np.arange(TILE * TILE), TILE)
    Px = Tx[:, None] * TILE + Lx[None, :]
    Py = Ty[:, None] * TILE + Ly[None, :]
    Inside = (Px < S["W"]) & (Py < S["H"])
    Pix = np.where(Inside, Py * S["W"] + Px, 0)
    T = lambda A, Ty=None: torch.as_tensor(A, device=Dev, dtype=Ty)
    return dict(ids=T(Ids), valid=T(Valid), px=T(Px), py=T(Py), inside=T(Inside), pix=T(Pix, torch.int64))


def render(P, C, Dt):
    """Image (chunk tiles x 256 x 3) of the chunk C from the parameters P."""
    Means, Conics, Colours, Opacities = P
    G = C["ids"]
    Dx = Means[G, 0][:, None, :] - C["px"].to(Dt)[:, :, None]
    Dy = Means[G, 1][:, None, :] - C["py"].to(Dt)[:, :, None]
    A, B, Cc = (Conics[G, K][:, None, :] for K in range(3))
    Power = -0.5 * (A * Dx * Dx + Cc * Dy * Dy) - B * Dx * Dy
    Alpha = torch.clamp(Opacities[G][:, None, :] * torch.exp(Power), max=0.99)
    with torch.no_grad():
        Keep = C["valid"][:, None, :] & (Power <= 0) & (Alpha >= 1.0 / 255)
        A0 = torch.where(Keep, Alpha, torch.zeros_like(Alpha))
        Tn = torch.cumprod(1 - A0, dim=2)  # T after each entry
        Stops = Keep & (Tn < 1e-4)
        # Entries from the first stop on are not blended.
        Keep &= torch.cumsum(Stops.to(torch.int32), dim=2) == 0
    Alpha = torch.where(Keep, Alpha, torch.zeros_like(Alpha))
    Trans = torch.cumprod(1 - Alpha, dim=2)
    Before = torch.cat([torch.ones_like(Trans[:, :, :1]), Trans[:, :, :-1]], dim=2)
    Weight = Alpha * Before
    return torch.einsum("tpl,tlc->tpc", Weight, Colours[G])


def backward_ms(S, Prepared, P, Seed, Dt):
    """Total ms of loss.backward() over the chunks (gradients accumulate)."""
    Total = 0.0
    Start, End = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    for C in Prepared:
        Image = render(P, C, Dt)
        Mask = C["inside"].to(Dt)[:, :, None]
        Loss = (Image * Seed[C["pix"]] * Mask).sum()
        torch.cuda.synchronize()
        Start.record()
        Loss.backward()
        End.record()
        torch.cuda.synchronize()
        Total += Start.elapsed_time(End)
    return Total


def main():
    Dir = sys.argv[1]
    Reps = 5
    for A in sys.argv[2:]:
        if A.startswith("--reps="):
            Reps = max(1, min(int(A[7:]), 10))
    S = load(Dir)
    Dt = torch.float32 if S["dtype"] == "float32" else torch.float64
    Dev = torch.device("cuda")
    Prepared = [prepare(S, Tiles, Dev) for Tiles in chunks(S)]
    P = [torch.tensor(S[K], device=Dev, dtype=Dt, requires_grad=True)
         for K in ("means", "conics", "colours", "opacities")]
    Seed = torch.tensor(S["seed"], device=Dev, dtype=Dt)
    Times = []
    for Rep in range(Reps + 1):
        for X in P:
            X.grad = None
        Ms = backward_ms(S, Prepared, P, Seed, Dt)
        if Rep > 0:
            Times.append(Ms)
    Num = Den = 0.0
    for X, Ref in zip(P, S["ref"]):
        G = X.grad.detach().double().cpu().numpy().ravel()
        Num += float(((G - Ref) ** 2).sum())
        Den += float((Ref ** 2).sum())
    Err = (Num / max(Den, 1e-300)) ** 0.5
    Ty = "fp32" if Dt == torch.float32 else "fp64"
    print("# torch %s, %d chunks of tiles" % (torch.__version__, len(Prepared)))
    print("%-8s %-5d %-10d %-16s %10.3f %10s %12.2e" %
          (Ty, S["W"], S["N"], "torch-autograd", statistics.median(Times), "-", Err))


if __name__ == "__main__":
    main()
