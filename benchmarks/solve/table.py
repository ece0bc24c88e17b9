#!/usr/bin/env python3
# ===- benchmarks/solve/table.py - The Newton solves' markdown table -------===#
#
# Reads the CSVs of param-bench and newton_peers.py (every *.csv of DIR) and
# prints one markdown table: per problem and variant, one Newton iteration
# and the whole solve (median ms), each over meshad's, and the solve's note
# (iterations, CG iterations, final energy, stop reason) or why it is
# missing (failed, skipped).
#
#   python3 table.py DIR
#
# ===----------------------------------------------------------------------===#
import csv
import glob
import os
import sys


def main():
    Dir = sys.argv[1] if len(sys.argv) > 1 else "."
    Rows = []
    for Path in sorted(glob.glob(os.path.join(Dir, "*.csv"))):
        with open(Path) as F:
            Rows += [R for R in csv.DictReader(F) if R.get("energy") == "param"]
    Problems = []
    for R in Rows:
        if R["problem"] not in Problems:
            Problems.append(R["problem"])
    print("| problem | triangles | variant | newton iteration ms | x meshad | "
          "solve ms | x meshad | solve |")
    print("|---|---|---|---|---|---|---|---|")
    for Problem in Problems:
        Mine = [R for R in Rows if R["problem"] == Problem]
        Times = {(R["framework"], R["variant"], R["op"]): R for R in Mine}
        Base = {Op: Times.get(("meshad", "meshad newton", Op)) for Op in ("newton-iteration", "solve")}
        Variants = []
        for R in Mine:
            if (R["framework"], R["variant"]) not in Variants:
                Variants.append((R["framework"], R["variant"]))
        for Fw, Variant in Variants:
            Cells = []
            for Op in ("newton-iteration", "solve"):
                R = Times.get((Fw, Variant, Op))
                Ms = R["median_ms"] if R else ""
                Ratio = ""
                if Ms and Base[Op] and Base[Op]["median_ms"]:
                    Ratio = "%.1fx" % (float(Ms) / float(Base[Op]["median_ms"]))
                Cells += ["%.4g" % float(Ms) if Ms else "-", Ratio]
            Solve = Times.get((Fw, Variant, "solve"))
            Note = Solve["note"] if Solve else ""
            Label = Variant if Variant != "-" else Fw
            print("| %s | %s | %s | %s | %s |" % (Problem, Mine[0]["elements"], Label,
                                                 " | ".join(Cells), Note))


if __name__ == "__main__":
    main()
