#!/usr/bin/env python3
# ===- scripts/dev/long-functions.py - Functions over a length limit ------=== #
#
# Lists the function definitions of lib/ and tools/ (.cpp and .h) longer than
# a limit, longest first, one per line:
#   lib/Driver/Generator.cpp:120 generateDerivatives 94
# The length counts the lines from the one that names the function to its
# closing brace. Brace matching over the text with comments, string and
# character literals and preprocessor lines blanked out; a brace opens a
# function body when it follows a parenthesized parameter list (and maybe
# qualifiers, a trailing return type or a constructor's initializers) at
# namespace or class scope. Lambdas and local classes count as part of the
# function that holds them.
#
# Usage: python3 scripts/dev/long-functions.py [--limit N] [PATH...]
#   --limit N  longer than N lines (default 60, the coding standard's limit)
#   PATH...    files or folders (default: lib tools), relative to the root
#
# ===----------------------------------------------------------------------=== #
import argparse
import os
import re
import sys

ROOT = os.path.dirname(
    os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SUFFIXES = (".cpp", ".h")


def blank(text):
    """The text with comments, literals and preprocessor lines replaced by
    spaces (newlines kept, so offsets map to the same lines)."""
    out = list(text)
    i, n = 0, len(text)
    line_start = True

    def wipe(a, b):
        for k in range(a, b):
            if out[k] != "\n":
                out[k] = " "

    while i < n:
        c = text[i]
        if line_start and c == "#":
            j = i
            while j < n and text[j] != "\n":
                if text[j] == "\\" and j + 1 < n and text[j + 1] == "\n":
                    j += 1
                j += 1
            wipe(i, j)
            i = j
            continue
        if c == "\n":
            line_start = True
            i += 1
            continue
        if not c.isspace():
            line_start = False
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            wipe(i, j)
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            wipe(i, j)
            i = j
        elif (text.startswith('R"', i) and
              (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_"))):
            m = re.compile(r'R"([^(\s]*)\(').match(text, i)
            if not m:
                i += 1
                continue
            end = text.find(")" + m.group(1) + '"', m.end())
            j = n if end < 0 else end + len(m.group(1)) + 2
            wipe(i, j)
            i = j
        elif c in "\"'":
            # A digit separator (1'000) is no character literal.
            if (c == "'" and i > 0 and text[i - 1].isalnum() and i + 1 < n
                    and text[i + 1].isalnum()):
                i += 1
                continue
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            wipe(i, min(j + 1, n))
            i = j + 1
        else:
            i += 1
    return "".join(out)


NAME_BEFORE_PAREN = re.compile(
    r"((?:[A-Za-z_]\w*\s*(?:<[^()]*>)?\s*::\s*)*"
    r"(?:operator\s*(?:\(\s*\)|[^\s(]+|\s+\w+)|~?[A-Za-z_]\w*))\s*$")


def function_name(head):
    """The function a definition's head (the text before its brace) names,
    or None when the brace opens something else."""
    h = " ".join(head.split())
    if not h or re.search(r"\b(namespace|extern)\b", h) and "(" not in h:
        return None
    is_class = re.match(r"^(template\s*<.*>\s*)?(class|struct|union|enum)\b", h)
    ends_params = re.search(r"\)\s*(const\b|override\b|noexcept\b|->|:|$)", h)
    if is_class and not ends_params:
        return None
    # Find the first '(' outside template arguments.
    depth = 0
    for k, ch in enumerate(h):
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth = max(depth - 1, 0)
        elif ch == "(" and depth == 0:
            # operator() is named by its own parentheses.
            if re.search(r"operator\s*$", h[:k]) and h[k:].startswith("()"):
                continue
            before = h[:k]
            if re.search(r"(^|[^=!<>])=\s*[^=]", before):
                return None  # An initializer: `T x = f(...) {`.
            m = NAME_BEFORE_PAREN.search(before)
            if not m:
                return None
            name = re.sub(r"\s+", "", m.group(1))
            if name in ("if", "for", "while", "switch", "return", "sizeof",
                        "decltype", "alignas"):
                return None
            rest = h[k:]
            if not re.search(r"\)", rest):
                return None
            return name
    return None


def scan(path):
    """(line, name, length) of every function definition in \p path."""
    with open(path, encoding="utf-8", errors="replace") as f:
        text = blank(f.read())
    results = []
    # Each open brace: (kind, start offset of the head, name).
    stack = []
    head_start = 0
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        in_body = any(kind == "function" for kind, _, _ in stack)
        if c == "{":
            if in_body:
                stack.append(("block", i, None))
            else:
                head = text[head_start:i]
                name = function_name(head)
                if name:
                    # The head's first line that is not blank.
                    off = head_start + len(head) - len(head.lstrip())
                    # Start at the line that names the function.
                    pos = head.find(name.split("::")[-1].split("<")[0])
                    if pos >= 0:
                        off = head_start + pos
                    stack.append(("function", off, name))
                else:
                    stack.append(("scope", i, None))
            head_start = i + 1
        elif c == "}":
            if stack:
                kind, off, name = stack.pop()
                if kind == "function":
                    first = text.count("\n", 0, off) + 1
                    last = text.count("\n", 0, i) + 1
                    results.append((first, name, last - first + 1))
            head_start = i + 1
        elif c == ";" and not in_body:
            head_start = i + 1
        elif c == ":" and not in_body:
            # Access specifiers end a head: `public:`.
            m = re.search(r"\b(public|private|protected)\s*$",
                          text[head_start:i])
            if m and not text.startswith("::", i) and text[i - 1] != ":":
                head_start = i + 1
        i += 1
    return results


def files(paths):
    for p in paths:
        full = os.path.join(ROOT, p)
        if os.path.isfile(full):
            yield full
            continue
        for dirpath, _, names in os.walk(full):
            for name in sorted(names):
                if name.endswith(SUFFIXES):
                    yield os.path.join(dirpath, name)


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--limit", type=int, default=60)
    parser.add_argument("paths", nargs="*", default=["lib", "tools"])
    args = parser.parse_args()
    rows = []
    for path in files(args.paths):
        rel = os.path.relpath(path, ROOT)
        for line, name, length in scan(path):
            if length > args.limit:
                rows.append((length, rel, line, name))
    rows.sort(key=lambda r: (-r[0], r[1], r[2]))
    for length, rel, line, name in rows:
        print(f"{rel}:{line} {name} {length}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
