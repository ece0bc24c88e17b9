#!/usr/bin/env bash
#===- scripts/measure-simplify.sh - What the simplifier saves -------------===#
#
# Compiles every lit test under test/ (syntax only, with the plugin's dump)
# twice, with and without -fplugin-arg-meshad-no-simplify, and counts in the
# generated code: lines (non-empty), operations (binary and unary operators,
# ?:, compound assignments and ++/--, and calls, counted on the tokens of the
# dumped text) and, of those, calls and calls of math functions. Prints one line per test and the totals.
# Usage: bash scripts/measure-simplify.sh [build dir] [test dir]
#
#===----------------------------------------------------------------------===#
set -euo pipefail

Root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
Build=${1:-$Root/build}
Tests=${2:-$Root/test}
Clang=/usr/lib/llvm-22/bin/clang++
Tmp=$(mktemp -d)
trap 'rm -rf "$Tmp"' EXIT

dumpOne() { # file variant-flag output
  local Flags=(-fsyntax-only -fplugin="$Build/lib/libmeshad.so"
               -fplugin-arg-meshad-dump -I"$Root/include" -I"$Tests/Inputs"
               -Wno-everything)
  case "$1" in
    *.cu) Flags+=(-x c++ -std=c++20 -include meshad/cpu/CudaOnCpu.h) ;;
    *) Flags+=(-std=c++17) ;;
  esac
  [[ -n "$2" ]] && Flags+=("$2")
  "$Clang" "${Flags[@]}" "$1" 2> "$3" > /dev/null || true
}

find "$Tests" \( -name '*.cpp' -o -name '*.cu' \) -not -path '*/Inputs/*' \
  | sort > "$Tmp/files"
while read -r F; do
  Base=$Tmp/$(echo "$F" | md5sum | cut -c1-12)
  dumpOne "$F" "" "$Base.on"
  dumpOne "$F" -fplugin-arg-meshad-no-simplify "$Base.off"
  echo "$F $Base"
done < "$Tmp/files" > "$Tmp/index"

python3 - "$Tmp/index" "$Root" <<'PY'
import re, sys
TYPES = set('''double float int unsigned bool char long short void const auto
size_t double2 double3 double4 float2 float3 float4 int2 int3 int4 dim3
static __shared__ __device__ __host__ __global__ inline'''.split())
KEYWORDS = {'if', 'for', 'while', 'return', 'sizeof', 'switch', 'do', 'else'}
MATH = set('''sqrt sqrtf exp expf log logf sin sinf cos cosf tan tanf pow powf
fabs fabsf tanh tanhf atan atanf atan2 atan2f asin acos rsqrt rsqrtf cbrt
fmin fmax exp2 log2 log10 expm1 log1p sinh cosh erf hypot'''.split())
TOKEN = re.compile(r'''\s*(?:(?P<num>\d[\w.]*(?:[eE][+-]?\d+)?f?|\.\d[\w.]*)|
  (?P<id>[A-Za-z_][\w]*(?:::[A-Za-z_]\w*)*)|
  (?P<op>->|<<=|>>=|<<|>>|<=|>=|==|!=|&&|\|\||\+\+|--|[-+*/%&|^]=|[-+*/%<>=!~&|^?:.,;()\[\]{}]))''', re.X)

def generated(text):
    # Only the generated functions: drop meshad's diagnostics lines.
    return [l for l in text.splitlines()
            if l.strip() and not re.match(r'^\S+:\d+:\d+: ', l)
            and not l.startswith(('In file included', '1 error', '2 errors'))]

def count(lines):
    ops = calls = math = 0
    for line in lines:
        if not line.startswith(' '):
            continue  # a function's header or closing brace
        s = re.sub(r'"(\\.|[^"])*"', '""', line)
        s = re.sub(r'(\w)<[\w\s,:]*>\s*\(', r'\1(', s)  # f<1, 0>(...)
        toks = [m.group(0).strip() for m in TOKEN.finditer(s)]
        prev = None
        for i, t in enumerate(toks):
            nxt = toks[i + 1] if i + 1 < len(toks) else None
            operand_end = prev is not None and (
                prev in (')', ']') or (re.match(r'[\w.]', prev)
                                       and prev not in TYPES
                                       and prev not in KEYWORDS))
            if re.match(r'[A-Za-z_]', t) and nxt == '(' and \
                    t not in KEYWORDS and t not in TYPES:
                calls += 1
                math += t.split('::')[-1] in MATH
            elif t in ('+', '-', '*', '/', '%', '<', '>', '<=', '>=', '==',
                       '!=', '&&', '||', '&', '|', '^', '<<', '>>', '?'):
                if operand_end or t in ('/', '%', '<', '>', '<=', '>=', '==',
                                        '!=', '&&', '||', '|', '^', '<<',
                                        '>>', '?'):
                    ops += 1
                elif t in ('-', '!', '~', '&', '*'):
                    ops += 1  # unary (a pointer declarator is a type's)
                    if prev in TYPES:
                        ops -= 1
            elif t in ('!', '~', '++', '--', '+=', '-=', '*=', '/=', '%=',
                       '&=', '|=', '^=', '<<=', '>>='):
                ops += 1  # compound assignments compute too
            prev = t
    return ops + calls, calls, math

tot = {'on': [0, 0, 0, 0], 'off': [0, 0, 0, 0]}
files = 0
rows = []
for entry in open(sys.argv[1]):
    path, base = entry.split()
    res = {}
    for v in ('on', 'off'):
        lines = generated(open(base + '.' + v, errors='replace').read())
        res[v] = (len(lines),) + count(lines)
    if res['off'][0] == 0:
        continue
    files += 1
    for v in ('on', 'off'):
        for k in range(4):
            tot[v][k] += res[v][k]
    rows.append((path.replace(sys.argv[2] + '/', ''), res))
print('%-55s %16s %16s' % ('test', 'lines off/on', 'ops off/on'))
for path, res in rows:
    print('%-55s %7d/%-8d %7d/%-8d' % (path, res['off'][0], res['on'][0],
                                       res['off'][1], res['on'][1]))
def pct(a, b):
    return '%.1f%%' % (100.0 * (b - a) / a) if a else '-'
print('files with generated code: %d' % files)
for k, name in enumerate(['lines', 'operations (ops + calls)', 'calls',
                          'math calls']):
    a, b = tot['off'][k], tot['on'][k]
    print('%-26s without simplifier %6d, with %6d  (%s)' % (name, a, b,
                                                             pct(a, b)))
PY
