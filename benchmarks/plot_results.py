#!/usr/bin/env python3
# ===- benchmarks/plot_results.py - Time against size, every result ------===#
#
# Turns the benchmark tables of benchmarks/results/ into PNG plots of time
# against mesh size, one line per variant. Reads every CSV under the given
# folders (recursively) in the schema of benchmarks/peers (problem, energy,
# elements, vertices, op, framework, variant, median_ms, ...: the peers'
# meshad.csv / jax.csv / torch.csv, benchmarks/solve's solve CSVs) and the
# cloth benchmark's "bench n=... vertices=... elements=...: gradient X ms,
# ..." lines in any *.txt or *.md there (scripts/gpu/solver-bench.sh's
# bench.txt, or a results page quoting them). One PNG per results folder,
# energy and operation: median ms against elements, log-log, meshad solid,
# hand-written dotted, JAX dashed, PyTorch dash-dot. Rows that failed or
# were skipped (no time) are left out. Needs matplotlib (Agg backend).
#
#   python3 benchmarks/plot_results.py [DIR...] [--out=OUT]
#     DIR: default benchmarks/results; OUT: default benchmarks/results/plots;
#     files OUT/<folder>-<energy>-<op>.png (<folder>: the CSV's folder, or
#     the .txt/.md file's name).
#
# ===----------------------------------------------------------------------===#
import csv
import os
import re
import sys

STYLES = {"meshad": "-", "jax": "--", "torch": "-."}
CLOTH = re.compile(r"bench n=(\d+) vertices=(\d+) elements=(\d+): (.*)")
CLOTH_OPS = ["gradient", "gradient+hessian", "hvp", "newton iteration", "solve"]


def csv_rows(Path, Source):
    with open(Path) as F:
        Rows = list(csv.DictReader(F))
    if not Rows or "median_ms" not in Rows[0]:
        return []
    for R in Rows:
        R["source"] = Source
    return Rows


def cloth_rows(Path, Source):
    """The cloth benchmark's lines: one row per operation."""
    Rows = []
    with open(Path, errors="replace") as F:
        for Line in F:
            M = CLOTH.search(Line)
            if not M:
                continue
            for Op in CLOTH_OPS:
                T = re.search(r"(?:^|, )%s ([0-9.]+) ms" % re.escape(Op), M.group(4))
                if T:
                    Rows.append({"source": Source, "energy": "cloth", "op": Op,
                                 "elements": M.group(3), "framework": "meshad",
                                 "variant": "meshad", "median_ms": T.group(1)})
    return Rows


def read_all(Dirs):
    Rows = []
    for Dir in Dirs:
        for Root, _, Files in os.walk(Dir):
            if os.path.basename(Root) == "plots":
                continue
            for Name in sorted(Files):
                Path = os.path.join(Root, Name)
                if Name.endswith(".csv"):
                    Rows += csv_rows(Path, os.path.basename(Root))
                elif Name.endswith((".txt", ".md")):
                    Rows += cloth_rows(Path, os.path.splitext(Name)[0])
    return Rows


def series(Rows):
    """{(source, energy, op): {(framework, variant): [(elements, ms)]}}."""
    S = {}
    for R in Rows:
        try:
            Point = (int(R["elements"]), float(R["median_ms"]))
        except (KeyError, TypeError, ValueError):
            continue  # failed or skipped
        Key = (R["source"], R.get("energy") or R.get("problem", "?"), R["op"])
        S.setdefault(Key, {}).setdefault((R["framework"], R["variant"]), []).append(Point)
    return S


def plot(Key, Lines, Path, plt):
    Fig, Ax = plt.subplots(figsize=(7.5, 4.8))
    for (Fw, Variant), Points in sorted(Lines.items()):
        Points = sorted(Points)
        Style = ":" if Variant.startswith("hand") else STYLES.get(Fw, "-")
        Label = Variant if Fw == "meshad" or Variant.startswith(Fw) else "%s: %s" % (Fw, Variant)
        Ax.plot([P[0] for P in Points], [P[1] for P in Points], Style, marker="o",
                markersize=4, label=Label)
    Ax.set_xscale("log")
    Ax.set_yscale("log")
    Ax.set_xlabel("elements")
    Ax.set_ylabel("median time (ms)")
    Ax.set_title("%s: %s (%s)" % (Key[1], Key[2], Key[0]))
    Ax.grid(True, which="both", alpha=0.3)
    Ax.legend(fontsize=7, loc="upper left")
    Fig.tight_layout()
    Fig.savefig(Path, dpi=110)
    plt.close(Fig)


def main():
    Root = os.path.dirname(os.path.abspath(__file__))
    Out = next((A[6:] for A in sys.argv[1:] if A.startswith("--out=")),
               os.path.join(Root, "results", "plots"))
    Dirs = [A for A in sys.argv[1:] if not A.startswith("--")] or [os.path.join(Root, "results")]
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        sys.exit("plot_results.py needs matplotlib: python3 -m venv venv && "
                 "venv/bin/pip install matplotlib, then venv/bin/python3 %s" % sys.argv[0])
    os.makedirs(Out, exist_ok=True)
    Count = 0
    for Key, Lines in sorted(series(read_all(Dirs)).items()):
        Name = "-".join(re.sub(r"[^A-Za-z0-9.]+", "-", Part).strip("-") for Part in Key)
        Path = os.path.join(Out, Name + ".png")
        plot(Key, Lines, Path, plt)
        print("wrote", Path)
        Count += 1
    print("%d plots" % Count)


if __name__ == "__main__":
    main()
