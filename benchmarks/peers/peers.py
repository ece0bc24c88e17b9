#!/usr/bin/env python3
# ===- benchmarks/peers/peers.py - JAX and PyTorch on meshad's problems ----===#
#
# Reads the problems that peers-meshad --export=DIR wrote (positions,
# elements, rest data, a direction v and meshad's gradient, H v and Newton
# direction), writes each element energy once as a local function of the
# element's vertices, and times in one framework (one process each, so that
# neither holds the other's GPU memory), fp64:
#
#   gradient      JAX jit(grad(E));  torch autograd, torch.compile + autograd
#   grad+hessian  the gradient and vmap(hessian(local)) scattered into the
#                 cached slots of a block-sparse (3x3 blocks) matrix:
#                 JAX .at[slots].add under jit; torch index_add_
#   hvp           JAX jvp(grad(E)); torch func.jvp(func.grad(E)) and double
#                 backward; both: each local Hessian formed, then times v
#   newton        gradient + Hessian, then CG_ITERS plain CG iterations on
#                 H d = -g from d = 0 (block SpMV by gather + segment sum;
#                 JAX: one jit with fori_loop; torch: eager, no host syncs)
#
# Each result is checked against meshad's (max abs error / max abs value; the
# Hessian through its product with v). Timing: the first call alone (compile
# and setup show there: first_call_s), 2 warm-ups, then the median of --reps
# (--reps-large at size 3; 5 for a call over 300 ms: the reps column says):
# JAX by wall clock around block_until_ready, torch by CUDA events. Rows
# append to --csv (the format of peers-meshad). Problems run smallest size
# first; once --budget seconds have passed, the rest are skipped (rows say so).
#
#   python3 peers.py DIR --framework=jax|torch [--csv=FILE] [--reps=N]
#       [--reps-large=N] [--budget=SECONDS] [--no-compile] [--cpu]
#
# ===----------------------------------------------------------------------===#
import argparse
import glob
import os
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import local_energies  # noqa: E402  (the energies, shared with the tests)

START = time.perf_counter()


def load(Dir, Key):
    Meta = open(os.path.join(Dir, Key + ".meta")).read().split()
    NV, NE, Arity, Energy, CgIters = int(Meta[1]), int(Meta[2]), int(Meta[3]), Meta[4], int(Meta[5])

    def Read(Name, T=np.float64):
        return np.fromfile(os.path.join(Dir, "%s.%s.bin" % (Key, Name)), dtype=T)

    Rest = Read("rest")
    Measure = Read("measure")
    return dict(key=Key, energy=Energy, nv=NV, ne=NE, arity=Arity, cg_iters=CgIters,
                x=Read("x").reshape(NV, 3),
                elements=Read("elements", np.int32).reshape(NE, Arity).astype(np.int64),
                rest=Rest.reshape(NE, -1),
                measure=Measure if Measure.size else np.zeros(NE),
                grad=Read("grad").reshape(NV, 3), v=Read("v").reshape(NV, 3),
                hv=Read("hv").reshape(NV, 3), newton=Read("newton").reshape(NV, 3))


def rel_error(Got, Want):
    Got = np.asarray(Got).reshape(Want.shape)
    D = np.abs(Got - Want).max()
    return float(D / np.abs(Want).max()) if np.isfinite(D) else float("inf")


class Csv:
    HEADER = ("problem,energy,elements,vertices,op,framework,variant,median_ms,min_ms,"
              "reps,first_call_s,rel_error,note")

    def __init__(self, Path):
        New = not os.path.exists(Path) or os.path.getsize(Path) == 0
        self.File = open(Path, "a")
        if New:
            self.File.write(self.HEADER + "\n")

    def row(self, P, Op, Fw, Variant, Times, Err, Note=""):
        Median = "%.6g" % Times["median"] if Times else ""
        Min = "%.6g" % Times["min"] if Times else ""
        Reps = Times["reps"] if Times else 0
        First = "%.6g" % Times["first_s"] if Times else ""
        ErrText = "%.3g" % Err if Err is not None else ""
        self.File.write("%s,%s,%d,%d,%s,%s,%s,%s,%s,%d,%s,%s,%s\n" % (
            P["key"], P["energy"], P["ne"], P["nv"], Op, Fw, Variant, Median, Min, Reps,
            First, ErrText, Note.replace(",", ";")))
        self.File.flush()
        print("   %-12s %-6s %-40s %10s ms  rel error %-8s %s" % (
            Op, Fw, Variant, Median or "-", ErrText or "-", Note), flush=True)


SLOW_MS = 300  # a call slower than this after compilation gets SLOW_REPS
SLOW_REPS = 5


def time_calls(Run, Sync, Reps, Timer):
    """First call alone, 2 warm-ups, the median of Reps (SLOW_REPS when a
    warm-up took over SLOW_MS); Timer(Run, Sync) -> ms."""
    T0 = time.perf_counter()
    Out = Sync(Run())
    First = time.perf_counter() - T0
    for _ in range(2):
        T0 = time.perf_counter()
        Sync(Run())
        if 1e3 * (time.perf_counter() - T0) > SLOW_MS:
            Reps = min(Reps, SLOW_REPS)
    Ms = sorted(Timer(Run, Sync) for _ in range(Reps))
    return Out, dict(median=statistics.median(Ms), min=Ms[0], reps=Reps, first_s=First)


def main():
    Ap = argparse.ArgumentParser()
    Ap.add_argument("dir")
    Ap.add_argument("--framework", choices=["jax", "torch"], required=True)
    Ap.add_argument("--csv", default=None)
    Ap.add_argument("--reps", type=int, default=10)
    Ap.add_argument("--reps-large", type=int, default=10)
    Ap.add_argument("--budget", type=float, default=1e9,
                    help="seconds: later variants are skipped (rows say so)")
    Ap.add_argument("--no-compile", action="store_true", help="no torch.compile")
    Ap.add_argument("--cpu", action="store_true", help="run on the CPU (tests)")
    Ap.add_argument("--only", default="")
    A = Ap.parse_args()
    Csv_ = Csv(A.csv or os.path.join(A.dir, A.framework + ".csv"))
    if A.framework == "jax":
        import peers_jax as Backend
    else:
        import peers_torch as Backend
    Runner = Backend.Runner(cpu=A.cpu, compile_=not A.no_compile)
    print("%s %s on %s" % (A.framework, Runner.version, Runner.device), flush=True)
    # Smallest sizes first (then energy): a spent --budget skips large ones.
    Keys = sorted((os.path.basename(F)[:-5] for F in glob.glob(os.path.join(A.dir, "*.meta"))),
                  key=lambda K: (K.rsplit("-", 1)[1], K))
    for Key in Keys:
        if A.only and not Key.startswith(A.only):
            continue
        P = load(A.dir, Key)
        Reps = A.reps_large if Key.endswith("-3") else A.reps
        print("== %s: %d vertices, %d elements" % (Key, P["nv"], P["ne"]), flush=True)
        Runner.load(P)
        for Op, Variant, Fn in Runner.variants():
            if time.perf_counter() - START > A.budget:
                Csv_.row(P, Op, A.framework, Variant, None, None, "skipped: time budget")
                continue
            try:
                Times, Err, Note = Runner.run(Fn, Reps)
                Csv_.row(P, Op, A.framework, Variant, Times, Err, Note)
            except Exception as Ex:  # out of memory, an unsupported op: say so, go on
                Msg = (str(Ex).strip().splitlines() or [type(Ex).__name__])[0][:100]
                Csv_.row(P, Op, A.framework, Variant, None, None, "failed: " + Msg)
                Runner.free()
        Runner.unload()


if __name__ == "__main__":
    main()
