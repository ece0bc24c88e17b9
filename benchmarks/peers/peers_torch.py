# ===- benchmarks/peers/peers_torch.py - The PyTorch side of peers.py -----===#
#
# peers.py's Runner for PyTorch (fp64, eager unless said): autograd and
# torch.func (grad, jvp, vmap(hessian)), index_add_ into cached slots, timed
# with CUDA events (wall clock on the CPU). The sparse pattern is computed
# once per problem with torch.unique; vmap(hessian) runs in chunks of
# CHUNK elements (torch.func.vmap's chunk_size) to bound its memory.
#
# ===----------------------------------------------------------------------===#
import time

import torch
from torch.func import grad as func_grad
from torch.func import hessian, jvp, vmap

from local_energies import local
from peers import rel_error, time_calls

CHUNK = 1 << 20


class Runner:
    def __init__(self, cpu, compile_):
        Cuda = torch.cuda.is_available() and not cpu
        self.dev = torch.device("cuda" if Cuda else "cpu")
        self.version = torch.__version__
        self.device = torch.cuda.get_device_name() if Cuda else "cpu"
        self.compile = compile_
        self.sync = (lambda Out: (torch.cuda.synchronize(), Out)[1]) if Cuda else (lambda Out: Out)
        self.timer = self.event_ms if Cuda else self.wall_ms

    @staticmethod
    def event_ms(Run, Sync):
        Start, Stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        Start.record()
        Run()
        Stop.record()
        Stop.synchronize()
        return Start.elapsed_time(Stop)

    @staticmethod
    def wall_ms(Run, Sync):
        T0 = time.perf_counter()
        Sync(Run())
        return 1e3 * (time.perf_counter() - T0)

    def load(self, P):
        T = lambda A: torch.as_tensor(A, device=self.dev)  # noqa: E731
        self.P = P
        self.x, self.v = T(P["x"]), T(P["v"])
        El, Rest, Measure = T(P["elements"]), T(P["rest"]), T(P["measure"])
        NV, A = P["nv"], P["arity"]
        T0 = time.perf_counter()
        Rows = El.repeat_interleave(A, dim=1)  # [e, a*A+b] = El[e, a]
        Cols = El.repeat(1, A)                 # [e, a*A+b] = El[e, b]
        Uniq, Inv = torch.unique((Rows * NV + Cols).ravel(), sorted=True, return_inverse=True)
        BRow, BCol, Slots, NB = Uniq // NV, Uniq % NV, Inv.ravel(), Uniq.numel()
        self.sync(None)
        self.setup_s = time.perf_counter() - T0
        del Rows, Cols, Uniq, Inv
        F = local(torch, P["energy"])
        Energy = lambda X: F(X[El], Rest, Measure).sum()  # noqa: E731
        LocalH = vmap(hessian(F), chunk_size=CHUNK)  # (NE, A, 3, A, 3)

        def Autograd(X):
            Xg = X.detach().requires_grad_(True)
            return torch.autograd.grad(Energy(Xg), Xg)[0]

        def Assemble(X):
            H = LocalH(X[El], Rest, Measure).permute(0, 1, 3, 2, 4).reshape(-1, 3, 3)
            return torch.zeros(NB, 3, 3, dtype=X.dtype, device=X.device).index_add_(0, Slots, H)

        def Spmv(Vals, V):
            Prod = torch.einsum("bij,bj->bi", Vals, V[BCol])
            return torch.zeros_like(V).index_add_(0, BRow, Prod)

        def DoubleBackward(X, V):
            Xg = X.detach().requires_grad_(True)
            (G,) = torch.autograd.grad(Energy(Xg), Xg, create_graph=True)
            return torch.autograd.grad(G, Xg, V)[0]

        def LocalHv(X, V):
            Hv = torch.einsum("eaibj,ebj->eai", LocalH(X[El], Rest, Measure), V[El])
            return torch.zeros_like(X).index_add_(0, El.ravel(), Hv.reshape(-1, 3))

        def Newton(X):
            G, Vals = Autograd(X), Assemble(X)
            R = -G
            D, Pk, RR = torch.zeros_like(X), R.clone(), (R * R).sum()
            for _ in range(P["cg_iters"]):  # device scalars: no host syncs
                Ap = Spmv(Vals, Pk)
                Alpha = RR / (Pk * Ap).sum()
                D += Alpha * Pk
                R -= Alpha * Ap
                RRNew = (R * R).sum()
                Pk = R + (RRNew / RR) * Pk
                RR = RRNew
            return D

        self.fns = dict(grad=Autograd, gradhess=lambda X: (Autograd(X), Assemble(X)),
                        spmv=Spmv, hvp_jvp=lambda X, V: jvp(func_grad(Energy), (X,), (V,))[1],
                        hvp_double=DoubleBackward, hvp_local=LocalHv, newton=Newton)
        if self.compile:
            Compiled = torch.compile(Energy)

            def CompiledGrad(X):
                Xg = X.detach().requires_grad_(True)
                return torch.autograd.grad(Compiled(Xg), Xg)[0]

            self.fns["grad_compiled"] = CompiledGrad

    def variants(self):
        It = self.P["cg_iters"]
        V = [("gradient", "autograd (eager)", "grad")]
        if self.compile:
            V.append(("gradient", "torch.compile + autograd", "grad_compiled"))
        return V + [
            ("grad+hessian", "autograd + vmap(hessian) + index_add_", "gradhess"),
            ("hvp", "func.jvp(func.grad)", "hvp_jvp"),
            ("hvp", "autograd double backward", "hvp_double"),
            ("hvp", "vmap(hessian) local Hessians x v", "hvp_local"),
            ("newton", "grad + hessian + %d CG (eager)" % It, "newton")]

    def run(self, Key, Reps):
        P, Fn, X, V = self.P, self.fns[Key], self.x, self.v
        Run = (lambda: Fn(X, V)) if Key.startswith("hvp") else (lambda: Fn(X))
        Out, Times = time_calls(Run, self.sync, Reps, self.timer)
        Note = ""
        if Key.startswith("grad") and Key != "gradhess":
            Err = rel_error(Out.cpu().numpy(), P["grad"])
            if Key == "grad_compiled":
                Note = "first call includes torch.compile"
        elif Key == "gradhess":
            Hv = self.fns["spmv"](Out[1], V)
            Err = max(rel_error(Out[0].cpu().numpy(), P["grad"]),
                      rel_error(Hv.cpu().numpy(), P["hv"]))
            Note = "error: max of gradient and H v; pattern setup %.2f s" % self.setup_s
        elif Key == "newton":
            Err = rel_error(Out.cpu().numpy(), P["newton"])
        else:
            Err = rel_error(Out.detach().cpu().numpy(), P["hv"])
        del Out
        self.free()
        return Times, Err, Note

    def free(self):
        if self.dev.type == "cuda":
            torch.cuda.empty_cache()

    def unload(self):
        self.fns = None
        self.x = self.v = None
        self.free()

