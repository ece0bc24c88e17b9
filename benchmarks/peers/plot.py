#!/usr/bin/env python3
# ===- benchmarks/peers/plot.py - Time against size, per energy and operation ===#
#
# Reads the CSVs of peers-meshad and peers.py (every *.csv of DIR) and writes
# one PNG per energy and operation into OUT (default
# benchmarks/results/plots/): median time against the number of elements,
# log-log, one line per variant (meshad solid, hand-written dotted, JAX
# dashed, PyTorch dash-dot). Needs matplotlib (Agg backend).
#
#   python3 plot.py DIR [OUT] [--prefix=NAME]   # files OUT/NAME-ENERGY-OP.png
#
# ===----------------------------------------------------------------------===#
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from table import OPS, read_rows  # noqa: E402

ENERGIES = {"spring": "mass-spring", "dirichlet": "symmetric Dirichlet",
            "neohookean": "neo-Hookean"}
STYLES = {"meshad": "-", "jax": "--", "torch": "-."}


def series(Rows, Energy, Op):
    """{(framework, variant): [(elements, ms)]} sorted by size."""
    S = {}
    for R in Rows:
        if R["energy"] == Energy and R["op"] == Op and R["median_ms"]:
            S.setdefault((R["framework"], R["variant"]), []).append(
                (int(R["elements"]), float(R["median_ms"])))
    return {K: sorted(V) for K, V in S.items()}


def plot(Rows, Energy, Op, Path):
    S = series(Rows, Energy, Op)
    if not S:
        return False
    Fig, Ax = plt.subplots(figsize=(7.5, 4.8))
    for (Fw, Variant), Points in sorted(S.items()):
        Style = ":" if Variant.startswith("hand") else STYLES.get(Fw, "-")
        Ax.plot([P[0] for P in Points], [P[1] for P in Points], Style, marker="o",
                markersize=4, label=Variant if Fw == "meshad" else "%s: %s" % (Fw, Variant))
    Ax.set_xscale("log")
    Ax.set_yscale("log")
    Ax.set_xlabel("elements")
    Ax.set_ylabel("median time (ms)")
    Ax.set_title("%s: %s (fp64)" % (ENERGIES.get(Energy, Energy), Op))
    Ax.grid(True, which="both", alpha=0.3)
    Ax.legend(fontsize=7, loc="upper left")
    Fig.tight_layout()
    Fig.savefig(Path, dpi=110)
    plt.close(Fig)
    return True


def main():
    Args = [A for A in sys.argv[1:] if not A.startswith("--prefix=")]
    Prefix = next((A[9:] for A in sys.argv[1:] if A.startswith("--prefix=")), "peers")
    Dir = Args[0] if Args else "."
    Root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    Out = Args[1] if len(Args) > 1 else os.path.join(Root, "results", "plots")
    os.makedirs(Out, exist_ok=True)
    Rows = read_rows(Dir)
    for Energy in ENERGIES:
        for Op in OPS:
            Path = os.path.join(Out, "%s-%s-%s.png" % (Prefix, Energy, Op.replace("+", "-")))
            if plot(Rows, Energy, Op, Path):
                print("wrote", Path)


if __name__ == "__main__":
    main()
