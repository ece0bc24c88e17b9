#!/usr/bin/env python3
# ===- benchmarks/elements/peers.py - JAX and PyTorch on the same energies -===#
#
# Reads the problems that elements-bench --export=DIR wrote (positions,
# elements, rest data, meshad's gradient), writes the same three energies
# in JAX and PyTorch, and times their gradients on the GPU in fp64:
#   JAX:   jax.jit(jax.grad(E))                       (wall clock, blocking)
#   torch: torch.compile(E), then torch.autograd.grad (CUDA events)
#   torch eager: the same without compile
# Each is checked against meshad's gradient (max abs error / max abs value).
# Prints one table; peers that are not installed are skipped with a note.
#
#   python3 peers.py DIR [--reps=N]
#
# ===----------------------------------------------------------------------===#
import glob
import os
import statistics
import sys
import time

import numpy as np

MU, LAMBDA = 1.0, 10.0


def load(Dir, Key):
    Meta = open(os.path.join(Dir, Key + ".meta")).read().split()
    NV, NE, Arity = int(Meta[1]), int(Meta[2]), int(Meta[3])
    Read = lambda Name, T: np.fromfile(os.path.join(Dir, "%s.%s.bin" % (Key, Name)), dtype=T)
    return dict(key=Key, x=Read("x", np.float64).reshape(NV, 3),
                elements=Read("elements", np.int32).reshape(NE, Arity),
                rest=Read("rest", np.float64), measure=Read("measure", np.float64),
                grad=Read("grad", np.float64).reshape(NV, 3))


def energy(xp, P, X, El, Rest, Measure):
    """The energy of problem P in the array library xp (jax.numpy or torch)."""
    Kind = P["key"]
    V = [X[El[:, J]] for J in range(El.shape[1])]
    if Kind.startswith("spring"):
        D = V[0] - V[1]
        Len = xp.sqrt((D * D).sum(-1))
        return 0.5 * ((Len - Rest) ** 2).sum()
    if Kind == "dirichlet":
        M = Rest.reshape(-1, 2, 2)
        E1, E2 = V[1] - V[0], V[2] - V[0]
        J0 = E1 * M[:, 0, 0, None] + E2 * M[:, 1, 0, None]
        J1 = E1 * M[:, 0, 1, None] + E2 * M[:, 1, 1, None]
        G00, G01, G11 = (J0 * J0).sum(-1), (J0 * J1).sum(-1), (J1 * J1).sum(-1)
        Tr, Det = G00 + G11, G00 * G11 - G01 * G01
        return (Measure * Tr * (1.0 + 1.0 / Det)).sum()
    M = Rest.reshape(-1, 3, 3)
    Ds = xp.stack([V[1] - V[0], V[2] - V[0], V[3] - V[0]], -1)
    F = Ds @ M
    Norm2 = (F * F).sum((-1, -2))
    J = (F[:, 0, 0] * (F[:, 1, 1] * F[:, 2, 2] - F[:, 1, 2] * F[:, 2, 1])
         - F[:, 0, 1] * (F[:, 1, 0] * F[:, 2, 2] - F[:, 1, 2] * F[:, 2, 0])
         + F[:, 0, 2] * (F[:, 1, 0] * F[:, 2, 1] - F[:, 1, 1] * F[:, 2, 0]))
    LogJ = xp.log(J)
    return (Measure * (0.5 * MU * (Norm2 - 3.0) - MU * LogJ + 0.5 * LAMBDA * LogJ * LogJ)).sum()


def relError(Got, Ref):
    return float(np.abs(Got - Ref).max() / np.abs(Ref).max())


def runJax(P, Reps):
    import jax
    jax.config.update("jax_enable_x64", True)
    import jax.numpy as jnp
    X = jnp.asarray(P["x"])
    El, Rest, Measure = (jnp.asarray(P[K]) for K in ("elements", "rest", "measure"))
    Grad = jax.jit(jax.grad(lambda X: energy(jnp, P, X, El, Rest, Measure)))
    G = np.asarray(Grad(X).block_until_ready())
    for _ in range(3):
        Grad(X).block_until_ready()
    Ms = []
    for _ in range(Reps):
        T0 = time.perf_counter()
        Grad(X).block_until_ready()
        Ms.append(1e3 * (time.perf_counter() - T0))
    return statistics.median(Ms), relError(G, P["grad"])


def runTorch(P, Reps, Compile):
    import torch
    Dev = torch.device("cuda")
    X = torch.tensor(P["x"], device=Dev)
    El = torch.tensor(P["elements"].astype(np.int64), device=Dev)
    Rest = torch.tensor(P["rest"], device=Dev)
    Measure = torch.tensor(P["measure"], device=Dev)
    E = lambda X: energy(torch, P, X, El, Rest, Measure)
    if Compile:
        E = torch.compile(E)

    def grad():
        Xg = X.detach().requires_grad_(True)
        (G,) = torch.autograd.grad(E(Xg), Xg)
        return G

    G = grad().cpu().numpy()
    for _ in range(3):
        grad()
    Start, Stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    Ms = []
    for _ in range(Reps):
        torch.cuda.synchronize()
        Start.record()
        grad()
        Stop.record()
        Stop.synchronize()
        Ms.append(Start.elapsed_time(Stop))
    return statistics.median(Ms), relError(G, P["grad"])


def main():
    Dir = sys.argv[1]
    Reps = 20
    for A in sys.argv[2:]:
        if A.startswith("--reps="):
            Reps = int(A[7:])
    Keys = sorted(os.path.basename(F)[:-5] for F in glob.glob(os.path.join(Dir, "*.meta")))
    Peers = [("JAX jit(grad)", lambda P: runJax(P, Reps)),
             ("torch.compile", lambda P: runTorch(P, Reps, True)),
             ("torch eager", lambda P: runTorch(P, Reps, False))]
    print("| problem | peer | median ms | rel error vs meshad |\n|---|---|---|---|")
    for Key in Keys:
        P = load(Dir, Key)
        for Name, Run in Peers:
            try:
                Ms, Err = Run(P)
                print("| %s | %s | %.4f | %.1e |" % (Key, Name, Ms, Err), flush=True)
            except Exception as Ex:  # a missing or failing peer: say so, go on
                print("| %s | %s | failed: %s | |" % (Key, Name, str(Ex).splitlines()[0][:80]),
                      flush=True)


if __name__ == "__main__":
    main()
