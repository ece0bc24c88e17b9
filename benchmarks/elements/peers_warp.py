#!/usr/bin/env python3
# ===- benchmarks/elements/peers_warp.py - NVIDIA Warp on the springs -------===#
#
# The mass-spring problems that elements-bench --export=DIR wrote, as a Warp
# kernel (one thread per spring, wp.atomic_add of the energy), and its
# gradient by Warp's tape, fp64, timed with CUDA events (median of --reps
# after warm-up), checked against meshad's gradient: forward + backward (a
# new tape each time, as a user computes a gradient; the forward launch's
# atomic energy sum included), and the backward launch of one recorded tape
# alone (meshad's gradient kernel runs its own forward sweep, but no energy
# sum).
#
#   python3 peers_warp.py DIR [--reps=N]
#
# ===----------------------------------------------------------------------===#
import os
import statistics
import sys

import numpy as np
import warp as wp

from peers import load, relError


@wp.kernel
def springEnergy(x: wp.array(dtype=wp.vec3d), edges: wp.array(dtype=wp.int32, ndim=2),
                 rest: wp.array(dtype=wp.float64), E: wp.array(dtype=wp.float64)):
    t = wp.tid()
    d = x[edges[t, 0]] - x[edges[t, 1]]
    s = wp.length(d) - rest[t]
    wp.atomic_add(E, 0, wp.float64(0.5) * s * s)


def run(P, Reps):
    X = wp.array(P["x"], dtype=wp.vec3d, requires_grad=True)
    Edges = wp.array(P["elements"], dtype=wp.int32)
    Rest = wp.array(P["rest"], dtype=wp.float64)
    E = wp.zeros(1, dtype=wp.float64, requires_grad=True)
    N = P["elements"].shape[0]

    def grad():
        E.zero_()
        X.grad.zero_()
        Tape = wp.Tape()
        with Tape:
            wp.launch(springEnergy, dim=N, inputs=[X, Edges, Rest, E])
        Tape.backward(loss=E)
        return X.grad

    # The tape of one forward launch, replayed backwards alone.
    Recorded = wp.Tape()
    with Recorded:
        E.zero_()
        wp.launch(springEnergy, dim=N, inputs=[X, Edges, Rest, E])

    def backward():
        X.grad.zero_()
        Recorded.backward(loss=E)

    G = grad().numpy().reshape(-1, 3)
    Start, Stop = wp.Event(enable_timing=True), wp.Event(enable_timing=True)

    def time(Fn):
        for _ in range(3):
            Fn()
        Ms = []
        for _ in range(Reps):
            wp.synchronize()
            wp.record_event(Start)
            Fn()
            wp.record_event(Stop)
            wp.synchronize_event(Stop)
            Ms.append(wp.get_event_elapsed_time(Start, Stop))
        return statistics.median(Ms)

    return time(grad), time(backward), relError(G, P["grad"])


def main():
    Dir = sys.argv[1]
    Reps = 20
    for A in sys.argv[2:]:
        if A.startswith("--reps="):
            Reps = int(A[7:])
    wp.init()
    print("| problem | peer | median ms | rel error vs meshad |\n|---|---|---|---|")
    for Key in ("spring1m", "spring4m"):
        if os.path.exists(os.path.join(Dir, Key + ".meta")):
            Both, Backward, Err = run(load(Dir, Key), Reps)
            print("| %s | Warp %s tape, forward + backward | %.4f | %.1e |"
                  % (Key, wp.__version__, Both, Err), flush=True)
            print("| %s | Warp %s tape, backward only | %.4f | |"
                  % (Key, wp.__version__, Backward), flush=True)


if __name__ == "__main__":
    main()
