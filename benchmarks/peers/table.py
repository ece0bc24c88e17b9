#!/usr/bin/env python3
# ===- benchmarks/peers/table.py - The comparison's markdown table ---------===#
#
# Reads the CSVs of peers-meshad and peers.py (every *.csv of DIR) and prints
# one markdown table per operation: a row per problem and variant, its
# median, its time over the fastest meshad variant of that problem and
# operation, its error against meshad and its first call (compile, setup);
# then, last, the summary: per problem and operation the fastest meshad,
# JAX and PyTorch variant, the peers' times over meshad's and their largest
# error against meshad.
#
#   python3 table.py DIR
#
# ===----------------------------------------------------------------------===#
import csv
import glob
import os
import sys

OPS = ["gradient", "grad+hessian", "hvp", "newton"]


def read_rows(Dir):
    Rows = []
    for Path in sorted(glob.glob(os.path.join(Dir, "*.csv"))):
        with open(Path) as F:
            Rows += list(csv.DictReader(F))
    return Rows


def fastest_meshad(Rows, Problem, Op):
    Times = [float(R["median_ms"]) for R in Rows
             if R["problem"] == Problem and R["op"] == Op and R["framework"] == "meshad"
             and R["median_ms"] and not R["variant"].startswith("hand")
             and "SpMV only" not in R["variant"]]
    return min(Times) if Times else None


def problem_order(Rows):
    Seen = []
    for R in Rows:
        if R["problem"] not in Seen:
            Seen.append(R["problem"])
    Energies = {"spring": 0, "dirichlet": 1, "neohookean": 2}
    return sorted(Seen, key=lambda P: (Energies.get(P.rsplit("-", 1)[0], 9), P))


def fmt_error(Text):
    return "%.1e" % float(Text) if Text else "-"


def fastest(Rows, Problem, Op, Framework):
    """The fastest row of Framework (meshad: generated variants only)."""
    Best = None
    for R in Rows:
        if (R["problem"] != Problem or R["op"] != Op or R["framework"] != Framework
                or not R["median_ms"] or R["variant"].startswith("hand")
                or "SpMV only" in R["variant"]):
            continue
        if Best is None or float(R["median_ms"]) < float(Best["median_ms"]):
            Best = R
    return Best


def print_summary(Rows, Out=sys.stdout):
    Out.write("\n### summary: fastest variant per framework (x: time over meshad's)\n\n"
              "| problem | elements | op | meshad ms | JAX ms | PyTorch ms | "
              "largest peer rel error |\n|---|---|---|---|---|---|---|\n")
    for P in problem_order(Rows):
        for Op in OPS:
            M = fastest(Rows, P, Op, "meshad")
            if M is None:
                continue
            Cells, Errors = [], []
            for Fw in ("jax", "torch"):
                R = fastest(Rows, P, Op, Fw)
                if R is None:
                    Cells.append("-")
                    continue
                Cells.append("%.4g (%.1fx)" % (float(R["median_ms"]),
                                               float(R["median_ms"]) / float(M["median_ms"])))
                Errors += [float(S["rel_error"]) for S in Rows
                           if S["problem"] == P and S["op"] == Op and S["framework"] == Fw
                           and S["rel_error"]]
            Out.write("| %s | %s | %s | %.4g | %s | %s | %s |\n" % (
                P, M["elements"], Op, float(M["median_ms"]), Cells[0], Cells[1],
                "%.1e" % max(Errors) if Errors else "-"))


def print_tables(Rows, Out=sys.stdout):
    Problems = problem_order(Rows)
    for Op in OPS:
        Out.write("\n### %s\n\n| problem | elements | framework | variant | median ms | "
                  "x fastest meshad | rel error vs meshad | first call s | note |\n"
                  "|---|---|---|---|---|---|---|---|---|\n" % Op)
        for P in Problems:
            Best = fastest_meshad(Rows, P, Op)
            for R in Rows:
                if R["problem"] != P or R["op"] != Op:
                    continue
                Ms = R["median_ms"]
                Ratio = "%.1fx" % (float(Ms) / Best) if Ms and Best else ""
                Out.write("| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n" % (
                    P, R["elements"], R["framework"], R["variant"],
                    "%.4g" % float(Ms) if Ms else "-", Ratio, fmt_error(R["rel_error"]),
                    "%.3g" % float(R["first_call_s"]) if R["first_call_s"] else "-",
                    R["note"]))


def main():
    Rows = read_rows(sys.argv[1] if len(sys.argv) > 1 else ".")
    print_tables(Rows)
    print_summary(Rows)


if __name__ == "__main__":
    main()
