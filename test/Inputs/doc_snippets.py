#!/usr/bin/env python3
"""Extracts the examples of a reference page as one C++ translation unit.

Usage: doc_snippets.py PAGE.md PRELUDE.h [NAMESPACE]

An example is a fenced block whose info string is `cpp example` (statements:
compiled as the body of a function) or `cpp example-global` (declarations:
compiled at namespace scope). Each goes into a namespace of its own with
`using namespace NAMESPACE;`, behind a #line directive that points at the
page, so that a compile error names the page's line. Every `### ` entry of
the page must hold at least one example (else exit 1, naming the entry).
Prints the translation unit on stdout and `N examples` on stderr.
"""
import sys


def blocks(lines):
    """(kind, first line number, lines, entry) of each example."""
    entry, kind, start, body = None, None, 0, []
    for number, line in enumerate(lines, 1):
        text = line.rstrip("\n")
        if kind is None and text.startswith("### "):
            entry = text[4:]
            yield ("entry", number, [], entry)
        elif kind is None and text.startswith("```cpp example"):
            kind = text[len("```cpp "):].strip()
            start, body = number + 1, []
        elif kind is not None and text.startswith("```"):
            yield (kind, start, body, entry)
            kind = None
        elif kind is not None:
            body.append(text)


def main():
    page, prelude = sys.argv[1], sys.argv[2]
    namespace = sys.argv[3] if len(sys.argv) > 3 else "meshad::runtime::solve"
    with open(page) as f:
        lines = f.readlines()
    out = ['#include "%s"' % prelude]
    examples, covered, entries = 0, set(), []
    for kind, start, body, entry in blocks(lines):
        if kind == "entry":
            entries.append(entry)
            continue
        if kind not in ("example", "example-global"):
            sys.exit("%s:%d: unknown block kind '%s'" % (page, start - 1, kind))
        covered.add(entry)
        out.append("namespace example_%d {" % examples)
        out.append("using namespace %s;" % namespace)
        if kind == "example":
            out.append("[[maybe_unused]] static void run() {")
        out.append('#line %d "%s"' % (start, page))
        out.extend(body)
        out.append("}" if kind == "example-global" else "}\n}")
        examples += 1
    missing = [e for e in entries if e not in covered]
    if missing:
        sys.exit("%s: entries without an example: %s" % (page, "; ".join(missing)))
    print("\n".join(out))
    print("%d examples" % examples, file=sys.stderr)


if __name__ == "__main__":
    main()
