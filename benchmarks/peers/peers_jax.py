# ===- benchmarks/peers/peers_jax.py - The JAX side of peers.py -----------===#
#
# peers.py's Runner for JAX (fp64, jax_enable_x64): every operation one
# jax.jit function of the positions (and v), timed by wall clock around
# block_until_ready. The sparse pattern (unique vertex pairs -> 3x3 blocks,
# each element's slots) is computed once per problem with jnp.unique.
#
# ===----------------------------------------------------------------------===#
import os
import time

os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

jax.config.update("jax_enable_x64", True)

from local_energies import local  # noqa: E402
from peers import rel_error, time_calls  # noqa: E402


def wall_ms(Run, Sync):
    T0 = time.perf_counter()
    Sync(Run())
    return 1e3 * (time.perf_counter() - T0)


class Runner:
    def __init__(self, cpu, compile_):
        self.dev = jax.devices("cpu")[0] if cpu else jax.devices()[0]
        self.version = jax.__version__
        self.device = str(self.dev)

    def load(self, P):
        Put = lambda A: jax.device_put(A, self.dev)  # noqa: E731
        self.P = P
        self.x, self.v = Put(P["x"]), Put(P["v"])
        El = Put(P["elements"].astype(np.int32))
        Rest, Measure = Put(P["rest"]), Put(P["measure"])
        NV, A = P["nv"], P["arity"]
        T0 = time.perf_counter()
        Rows = jnp.repeat(El, A, axis=1).astype(jnp.int64)  # [e, a*A+b] = El[e, a]
        Cols = jnp.tile(El, (1, A)).astype(jnp.int64)       # [e, a*A+b] = El[e, b]
        Uniq, Inv = jnp.unique((Rows * NV + Cols).ravel(), return_inverse=True)
        BRow, BCol = (Uniq // NV).astype(jnp.int32), (Uniq % NV).astype(jnp.int32)
        Slots, NB = Inv.ravel().astype(jnp.int32), int(Uniq.shape[0])
        jax.block_until_ready(Slots)
        self.setup_s = time.perf_counter() - T0
        del Rows, Cols, Uniq, Inv
        F = local(jnp, P["energy"])
        Energy = lambda X: F(X[El], Rest, Measure).sum()  # noqa: E731
        Grad = jax.grad(Energy)
        LocalH = jax.vmap(jax.hessian(F))  # (NE, A, 3, A, 3)

        def Assemble(X):
            H = LocalH(X[El], Rest, Measure).transpose(0, 1, 3, 2, 4).reshape(-1, 3, 3)
            return jnp.zeros((NB, 3, 3), X.dtype).at[Slots].add(H)

        def Spmv(Vals, V):
            return jax.ops.segment_sum(jnp.einsum("bij,bj->bi", Vals, V[BCol]), BRow,
                                       num_segments=NV, indices_are_sorted=True)

        def LocalHv(X, V):
            Hv = jnp.einsum("eaibj,ebj->eai", LocalH(X[El], Rest, Measure), V[El])
            return jnp.zeros_like(X).at[El].add(Hv)

        def Newton(X):
            G, Vals = Grad(X), Assemble(X)

            def Step(_, S):
                D, R, Pk, RR = S
                Ap = Spmv(Vals, Pk)
                Alpha = RR / jnp.vdot(Pk, Ap)
                D, R = D + Alpha * Pk, R - Alpha * Ap
                RRNew = jnp.vdot(R, R)
                return D, R, R + (RRNew / RR) * Pk, RRNew

            R = -G
            return jax.lax.fori_loop(0, P["cg_iters"], Step,
                                     (jnp.zeros_like(X), R, R, jnp.vdot(R, R)))[0]

        self.fns = dict(
            grad=jax.jit(Grad), gradhess=jax.jit(lambda X: (Grad(X), Assemble(X))),
            spmv=jax.jit(Spmv),
            hvp_jvp=jax.jit(lambda X, V: jax.jvp(Grad, (X,), (V,))[1]),
            hvp_local=jax.jit(LocalHv), newton=jax.jit(Newton))

    def variants(self):
        It = self.P["cg_iters"]
        return [("gradient", "jit(grad)", "grad"),
                ("grad+hessian", "jit(grad + vmap(hessian) + .at[slots].add)", "gradhess"),
                ("hvp", "jit(jvp(grad))", "hvp_jvp"),
                ("hvp", "jit(vmap(hessian) local Hessians x v)", "hvp_local"),
                ("newton", "jit(grad + hessian + %d CG fori_loop)" % It, "newton")]

    def run(self, Key, Reps):
        P, Fn, X, V = self.P, self.fns[Key], self.x, self.v
        Run = (lambda: Fn(X, V)) if Key.startswith("hvp") else (lambda: Fn(X))
        Out, Times = time_calls(Run, jax.block_until_ready, Reps, wall_ms)
        Note = ""
        if Key == "grad":
            Err = rel_error(np.asarray(Out), P["grad"])
        elif Key == "gradhess":
            Hv = self.fns["spmv"](Out[1], V)
            Err = max(rel_error(np.asarray(Out[0]), P["grad"]), rel_error(np.asarray(Hv), P["hv"]))
            Note = "error: max of gradient and H v; pattern setup %.2f s" % self.setup_s
        elif Key == "newton":
            Err = rel_error(np.asarray(Out), P["newton"])
        else:
            Err = rel_error(np.asarray(Out), P["hv"])
        del Out
        return Times, Err, Note

    def free(self):
        pass

    def unload(self):
        self.fns = None
        self.x = self.v = None
        jax.clear_caches()
