#!/usr/bin/env python3
# ===- benchmarks/solve/newton_peers.py - Newton in JAX and PyTorch -------===#
#
# The parameterization solves of param-bench (the problems it exported:
# DIR/problems.txt, NAME.tris int32, NAME.uv and NAME.params float64) with
# the algorithm of meshad's newton (include/meshad/runtime/solve/Minimize.h)
# written in JAX or PyTorch:
#   - symmetric Dirichlet per triangle, its local Hessian by vmap(hessian),
#     projected to PSD per element (eigh, eigenvalues clamped at 0),
#     scattered into the cached slots of the CSR pattern (computed once,
#     excluded from the timings);
#   - block-Jacobi (2 x 2 per vertex) PCG from 0, stop at |r| <= tol |b|,
#     tol = max(1e-10, min(0.5, sqrt(|g| / |g_0|))), at most 2000 iterations
#     (SolveOptions::InexactNewton with meshad's default CgOptions);
#   - Armijo backtracking (c = 1e-4, halving, at most 60 steps, the
#     energy's round-off 8 eps |E| allowed) from min(1, 0.8 t_max), t_max
#     the flip-free step (the smallest positive root of every triangle's
#     signed area along the direction, InjectiveStep2D);
#   - stop at |g| <= 1e-6 or 200 iterations.
# Ops: newton-iteration (E and g at the Tutte map and one iteration, the
# median of --reps) and solve (once after a warm-up). Variants: JAX jit (the
# pieces jitted, PCG one lax.while_loop); PyTorch eager, and with the local
# Hessians' function under torch.compile (when it compiles). CSV rows in
# the schema of benchmarks/peers.
#
#   python3 newton_peers.py DIR --framework=jax|torch --csv=OUT.csv
#                           [--reps=5] [--budget=SECONDS] [--device=cpu]
#
# ===----------------------------------------------------------------------===#
import argparse
import math
import os
import sys
import time

import numpy as np

EPS = np.finfo(np.float64).eps
MAX_ITERATIONS, GRADIENT_TOLERANCE = 200, 1e-6
CG_TOLERANCE, CG_ITERATIONS = 1e-10, 2000


def load(Dir, Name):
    Tris = np.fromfile(os.path.join(Dir, Name + ".tris"), dtype=np.int32).reshape(-1, 3)
    Uv = np.fromfile(os.path.join(Dir, Name + ".uv"), dtype=np.float64)
    Params = np.fromfile(os.path.join(Dir, Name + ".params"), dtype=np.float64).reshape(-1, 5)
    return Tris, Uv, Params


def pattern(Tris, NumDofs):
    """CSR pattern of the 6 x 6 element blocks: rows, columns and, per
    element entry (t, i, j), its slot."""
    Dofs = np.stack([2 * Tris[:, A] + K for A in range(3) for K in range(2)], axis=1)
    Rows = np.repeat(Dofs[:, :, None], 6, axis=2).reshape(-1)
    Cols = np.repeat(Dofs[:, None, :], 6, axis=1).reshape(-1)
    Keys = Rows.astype(np.int64) * NumDofs + Cols
    Unique, Slots = np.unique(Keys, return_inverse=True)
    return (Unique // NumDofs).astype(np.int64), (Unique % NumDofs).astype(np.int64), Slots, Dofs


def local_energy(xp, x, p):
    """Symmetric Dirichlet of one triangle (x: 6 uv values, p: Dm^-1, area),
    or of all (x: T x 6) when the arrays are batched."""
    e1x, e1y = x[..., 2] - x[..., 0], x[..., 3] - x[..., 1]
    e2x, e2y = x[..., 4] - x[..., 0], x[..., 5] - x[..., 1]
    f00, f01 = e1x * p[..., 0] + e2x * p[..., 2], e1x * p[..., 1] + e2x * p[..., 3]
    f10, f11 = e1y * p[..., 0] + e2y * p[..., 2], e1y * p[..., 1] + e2y * p[..., 3]
    frob = f00 * f00 + f01 * f01 + f10 * f10 + f11 * f11
    det = f00 * f11 - f01 * f10
    return p[..., 4] * frob * (1 + 1 / (det * det))


class Solver:
    """The shared loop; a framework supplies energy, gradient, direction
    (Hessian + PCG), max_step, dot and the vector ops."""

    def newton(self, X0, Iterations):
        X = self.copy(X0)
        E = self.energy(X)
        G = self.gradient(X)
        GNorm = math.sqrt(self.dot(G, G))
        First, Its, CgIts = GNorm, 0, 0
        while GNorm > GRADIENT_TOLERANCE and Its < Iterations:
            Tol = max(CG_TOLERANCE, min(0.5, math.sqrt(GNorm / First)))
            D, Cg = self.direction(X, G, Tol)
            CgIts += Cg
            Slope = self.dot(G, D)
            Step = 1.0
            if not Slope < 0:
                D, Slope, Step = -G, -GNorm * GNorm, 1 / GNorm
            Step = min(Step, 0.8 * self.max_step(X, D))
            Slack = 8 * EPS * abs(E)
            for _ in range(61):
                Xn = X + Step * D
                En = self.energy(Xn)
                if math.isfinite(En) and En <= E + 1e-4 * Step * Slope + Slack:
                    break
                Step *= 0.5
            else:
                return X, E, GNorm, Its, CgIts, "line search failure"
            X, E = Xn, En
            G = self.gradient(X)
            GNorm = math.sqrt(self.dot(G, G))
            Its += 1
        Reason = "gradient tolerance" if GNorm <= GRADIENT_TOLERANCE else "max iterations"
        return X, E, GNorm, Its, CgIts, Reason


def jax_solver(Tris, Params, NumDofs, Pattern):
    import jax
    import jax.numpy as jnp
    jax.config.update("jax_enable_x64", True)
    Rows, Cols, Slots, Dofs = (jnp.asarray(A) for A in Pattern)
    T, P = jnp.asarray(Tris), jnp.asarray(Params)
    Nnz = int(Rows.shape[0])
    Local = lambda x, p: local_energy(jnp, x, p)
    LocalHessians = jax.vmap(jax.hessian(Local))

    @jax.jit
    def energy(X):
        return jnp.sum(local_energy(jnp, X[Dofs], P))

    gradient = jax.jit(jax.grad(energy))

    @jax.jit
    def hessian_values(X):
        H = LocalHessians(X[Dofs], P)
        W, V = jnp.linalg.eigh(H)
        H = (V * jnp.maximum(W, 0)[:, None, :]) @ jnp.swapaxes(V, 1, 2)
        return jax.ops.segment_sum(H.reshape(-1), Slots, num_segments=Nnz)

    def spmv(Vals, V):
        return jax.ops.segment_sum(Vals * V[Cols], Rows, num_segments=NumDofs)

    @jax.jit
    def pcg(Vals, B, Tol):
        Diag = jnp.zeros((NumDofs, 2)).at[Rows, Cols % 2].add(
            jnp.where(Rows // 2 == Cols // 2, Vals, 0.0)).reshape(-1, 2, 2)
        Inv = jnp.linalg.inv(Diag)
        Pre = lambda R: jnp.einsum("vij,vj->vi", Inv, R.reshape(-1, 2)).reshape(-1)
        BNorm = jnp.linalg.norm(B)
        X = jnp.zeros_like(B)
        R = B
        Z = Pre(R)
        State = (X, R, Z, Z, jnp.dot(R, Z), 0)

        def cond(S):
            return (jnp.linalg.norm(S[1]) > Tol * BNorm) & (S[5] < CG_ITERATIONS)

        def body(S):
            X, R, Z, D, Rz, K = S
            Ad = spmv(Vals, D)
            Alpha = Rz / jnp.dot(D, Ad)
            X, R = X + Alpha * D, R - Alpha * Ad
            Z = Pre(R)
            RzNew = jnp.dot(R, Z)
            return X, R, Z, Z + (RzNew / Rz) * D, RzNew, K + 1

        S = jax.lax.while_loop(cond, body, State)
        return S[0], S[5]

    @jax.jit
    def max_step(X, D):
        Xl, Dl = X[Dofs], D[Dofs]
        E1, E2 = Xl[:, 2:4] - Xl[:, 0:2], Xl[:, 4:6] - Xl[:, 0:2]
        F1, F2 = Dl[:, 2:4] - Dl[:, 0:2], Dl[:, 4:6] - Dl[:, 0:2]
        Cross = lambda U, V: U[:, 0] * V[:, 1] - U[:, 1] * V[:, 0]
        A, B, C = Cross(F1, F2), Cross(E1, F2) + Cross(F1, E2), Cross(E1, E2)
        return jnp.min(smallest_positive_root(jnp, A, B, C))

    S = Solver()
    S.copy = lambda X: jnp.asarray(X)
    S.energy = lambda X: float(energy(X))
    S.gradient = gradient
    S.dot = lambda U, V: float(jnp.dot(U, V))
    S.max_step = lambda X, D: float(max_step(X, D))

    def direction(X, G, Tol):
        D, K = pcg(hessian_values(X), -G, Tol)
        return D, int(K)

    S.direction = direction
    S.sync = lambda X: X.block_until_ready()
    S.upload = jnp.asarray
    return {"jax jit": S}


def smallest_positive_root(xp, A, B, C):
    """Per triangle, the smallest positive root of A t^2 + B t + C (inf when
    none), as smallestPositiveRoot in Injectivity.h."""
    Inf = xp.full_like(A, math.inf)
    Linear = xp.abs(A) <= 1e-14 * (xp.abs(B) + xp.abs(C))
    SafeB = xp.where(B != 0, B, 1.0)
    RLin = xp.where(B != 0, -C / SafeB, -1.0)
    RLin = xp.where(RLin > 0, RLin, Inf)
    Disc = B * B - 4 * A * C
    Sq = xp.sqrt(xp.where(Disc >= 0, Disc, 0.0))
    Q = -0.5 * (B + xp.where(B < 0, -Sq, Sq))
    SafeA = xp.where(A != 0, A, 1.0)
    SafeQ = xp.where(Q != 0, Q, 1.0)
    R1 = Q / SafeA
    R2 = xp.where(Q != 0, C / SafeQ, -1.0)
    Best = xp.where(R1 > 0, R1, Inf)
    Best = xp.where((R2 > 0) & (R2 < Best), R2, Best)
    Quad = xp.where(Disc < 0, Inf, Best)
    return xp.where(Linear, RLin, Quad)


def torch_solvers(Tris, Params, NumDofs, Pattern, Device):
    import torch
    torch.set_default_dtype(torch.float64)
    Rows, Cols, Slots, Dofs = (torch.as_tensor(A, device=Device) for A in Pattern)
    P = torch.as_tensor(Params, device=Device)
    Nnz = int(Rows.shape[0])
    Order = torch.argsort(Rows * NumDofs + Cols)
    Crow = torch.zeros(NumDofs + 1, dtype=torch.int64, device=Device)
    Crow[1:] = torch.cumsum(torch.bincount(Rows, minlength=NumDofs), 0)
    DiagMask = (Rows // 2) == (Cols // 2)

    def local_hessians(Xl, Pl):
        return torch.func.vmap(torch.func.hessian(lambda x, p: local_energy(torch, x, p)))(Xl, Pl)

    def make(Hessians):
        def energy(X):
            return float(torch.sum(local_energy(torch, X[Dofs], P)))

        def gradient(X):
            X = X.detach().requires_grad_(True)
            E = torch.sum(local_energy(torch, X[Dofs], P))
            (G,) = torch.autograd.grad(E, X)
            return G

        def hessian_values(X):
            H = Hessians(X[Dofs], P)
            W, V = torch.linalg.eigh(H)
            H = (V * W.clamp(min=0)[:, None, :]) @ V.transpose(1, 2)
            return torch.zeros(Nnz, device=Device).index_add_(0, Slots, H.reshape(-1))

        def direction(X, G, Tol):
            Vals = hessian_values(X)
            A = torch.sparse_csr_tensor(Crow, Cols, Vals, (NumDofs, NumDofs))
            Diag = torch.zeros(NumDofs, 2, device=Device).index_put_(
                (Rows[DiagMask], Cols[DiagMask] % 2), Vals[DiagMask], accumulate=True)
            Inv = torch.linalg.inv(Diag.reshape(-1, 2, 2))
            Pre = lambda R: torch.einsum("vij,vj->vi", Inv, R.reshape(-1, 2)).reshape(-1)
            B = -G
            BNorm = float(torch.linalg.norm(B))
            X = torch.zeros_like(B)
            R = B.clone()
            Z = Pre(R)
            D = Z.clone()
            Rz = torch.dot(R, Z)
            K = 0
            while K < CG_ITERATIONS and float(torch.linalg.norm(R)) > Tol * BNorm:
                Ad = A @ D
                Alpha = Rz / torch.dot(D, Ad)
                X += Alpha * D
                R -= Alpha * Ad
                Z = Pre(R)
                RzNew = torch.dot(R, Z)
                D = Z + (RzNew / Rz) * D
                Rz = RzNew
                K += 1
            return X, K

        def max_step(X, D):
            Xl, Dl = X[Dofs], D[Dofs]
            E1, E2 = Xl[:, 2:4] - Xl[:, 0:2], Xl[:, 4:6] - Xl[:, 0:2]
            F1, F2 = Dl[:, 2:4] - Dl[:, 0:2], Dl[:, 4:6] - Dl[:, 0:2]
            Cross = lambda U, V: U[:, 0] * V[:, 1] - U[:, 1] * V[:, 0]
            A, B, C = Cross(F1, F2), Cross(E1, F2) + Cross(F1, E2), Cross(E1, E2)
            return float(torch.min(smallest_positive_root(torch, A, B, C)))

        S = Solver()
        S.copy = lambda X: torch.as_tensor(X, device=Device).clone()
        S.energy, S.gradient, S.direction, S.max_step = energy, gradient, direction, max_step
        S.dot = lambda U, V: float(torch.dot(U, V))
        S.sync = lambda X: torch.cuda.synchronize() if Device == "cuda" else None
        S.upload = lambda X: torch.as_tensor(X, device=Device)
        return S

    Variants = {"torch eager": make(local_hessians)}
    try:
        Variants["torch.compile hessian"] = make(torch.compile(local_hessians))
    except Exception as Error:  # noqa: BLE001 (reported, the run goes on)
        print("torch.compile unavailable: %s" % Error, file=sys.stderr)
    return Variants


def timed(S, X0, Iterations):
    Start = time.perf_counter()
    Result = S.newton(X0, Iterations)
    S.sync(Result[0])
    return 1e3 * (time.perf_counter() - Start), Result


def bench_problem(Args, Name, NumVertices, NumTris, Csv):
    Tris, Uv, Params = load(Args.dir, Name)
    NumDofs = 2 * NumVertices
    Pattern = pattern(Tris, NumDofs)
    if Args.framework == "jax":
        Variants = jax_solver(Tris, Params, NumDofs, Pattern)
    else:
        Variants = torch_solvers(Tris, Params, NumDofs, Pattern, Args.device)
    for Variant, S in Variants.items():
        X0 = S.upload(Uv)
        try:
            First, _ = timed(S, X0, 1)
            Times = [timed(S, X0, 1)[0] for _ in range(Args.reps)]
            timed(S, X0, MAX_ITERATIONS)
            Solve, (X, E, GNorm, Its, CgIts, Reason) = timed(S, X0, MAX_ITERATIONS)
        except Exception as Error:  # noqa: BLE001 (a failed variant is a row)
            Csv.write("%s,param,%d,%d,solve,%s,%s,,,0,,,failed: %s\n" % (
                Name, NumTris, NumVertices, Args.framework, Variant,
                str(Error).splitlines()[0][:80].replace(",", ";")))
            continue
        Row = "%s,param,%d,%d,%s,%s,%s,%.6g,%.6g,%d,%.6g,,%s\n"
        Csv.write(Row % (Name, NumTris, NumVertices, "newton-iteration", Args.framework,
                         Variant, sorted(Times)[len(Times) // 2], min(Times),
                         len(Times), First / 1e3, "first call includes compilation"))
        Note = "%d iterations; cg %d; E %.9g; gnorm %.2e; %s" % (Its, CgIts, E, GNorm, Reason)
        Csv.write(Row % (Name, NumTris, NumVertices, "solve", Args.framework, Variant,
                         Solve, Solve, 1, First / 1e3, Note))
        Csv.flush()
        print("%-14s %-22s newton iteration %9.3f ms, solve %10.1f ms (%s)" % (
            Name, Variant, sorted(Times)[len(Times) // 2], Solve, Note), flush=True)


def main():
    Parser = argparse.ArgumentParser()
    Parser.add_argument("dir")
    Parser.add_argument("--framework", choices=["jax", "torch"], required=True)
    Parser.add_argument("--csv", required=True)
    Parser.add_argument("--reps", type=int, default=5)
    Parser.add_argument("--budget", type=float, default=150)
    Parser.add_argument("--device", default="cuda")
    Args = Parser.parse_args()
    Start = time.time()
    with open(os.path.join(Args.dir, "problems.txt")) as F:
        Problems = [L.split() for L in F if L.strip()]
    with open(Args.csv, "w") as Csv:
        Csv.write("problem,energy,elements,vertices,op,framework,variant,median_ms,"
                  "min_ms,reps,first_call_s,rel_error,note\n")
        for Name, NumVertices, NumTris in Problems:
            if time.time() - Start > Args.budget:
                Csv.write("%s,param,%s,%s,solve,%s,-,,,0,,,skipped: time budget\n" % (
                    Name, NumTris, NumVertices, Args.framework))
                continue
            bench_problem(Args, Name, int(NumVertices), int(NumTris), Csv)


if __name__ == "__main__":
    main()
