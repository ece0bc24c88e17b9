#!/usr/bin/env python3
# ===- scripts/count-results.py - Totals of ctest and lit runs -----------===#
#
# Reads the log of a ctest run and the xunit XML of a lit run, lists what
# failed and prints the totals as the last line:
#   N passed, N failed[, N skipped]
# Exits 1 when anything failed (including steps named with --failed-step,
# e.g. the build, and a missing lit report), else 0.
#
# ctest's own JUnit output reports a test whose executable is missing as
# "skipped", so the ctest side is read from its text log instead, where that
# is "***Not Run" and counts as a failure.
#
# ===----------------------------------------------------------------------===#
import argparse
import re
import sys
import xml.etree.ElementTree as ET

# "  3/12 Test  #3: ArgSpecTest ......   Passed    0.01 sec"
CTestLine = re.compile(r"^\s*\d+/\d+ Test\s+#\d+: (\S+) \.*\s*(?:\*\*\*)?(.*?)\s+[\d.]+ sec")


def readCTest(Path, Results):
    with open(Path, errors="replace") as File:
        for Line in File:
            Match = CTestLine.match(Line)
            if not Match:
                continue
            Name, Status = Match.group(1), Match.group(2).strip()
            if Status == "Passed":
                Kind = "passed"
            elif Status == "Skipped" or Status.startswith("Not Run (Disabled)"):
                Kind = "skipped"
            else:
                Kind = "failed"
            Results.append(("ctest", Name, Kind, Status))


def readLit(Path, Results):
    for Case in ET.parse(Path).getroot().iter("testcase"):
        Name = "%s/%s" % (Case.get("classname"), Case.get("name"))
        if Case.find("failure") is not None:
            Results.append(("lit", Name, "failed", "FAIL"))
        elif Case.find("skipped") is not None:
            Reason = Case.find("skipped").get("message", "")
            Results.append(("lit", Name, "skipped", Reason))
        else:
            Results.append(("lit", Name, "passed", "PASS"))


def main():
    Parser = argparse.ArgumentParser(description=__doc__)
    Parser.add_argument("--ctest-log")
    Parser.add_argument("--lit-xml")
    Parser.add_argument("--failed-step", action="append", default=[],
                        help="a step that failed as a whole (counts once)")
    Args = Parser.parse_args()

    Results = []
    if Args.ctest_log:
        readCTest(Args.ctest_log, Results)
    if Args.lit_xml:
        try:
            readLit(Args.lit_xml, Results)
        except (OSError, ET.ParseError) as Err:
            Results.append(("lit", "(report)", "failed", str(Err)))
    for Step in Args.failed_step:
        Results.append(("step", Step, "failed", "FAILED"))

    Count = {"passed": 0, "failed": 0, "skipped": 0}
    for Suite, Name, Kind, Detail in Results:
        Count[Kind] += 1
    for Kind in ["skipped", "failed"]:
        Items = [R for R in Results if R[2] == Kind]
        if Items:
            print("%s:" % Kind)
            for Suite, Name, _, Detail in Items:
                print("  [%s] %s (%s)" % (Suite, Name, Detail))

    Line = "%d passed, %d failed" % (Count["passed"], Count["failed"])
    if Count["skipped"]:
        Line += ", %d skipped" % Count["skipped"]
    print(Line)
    return 1 if Count["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
