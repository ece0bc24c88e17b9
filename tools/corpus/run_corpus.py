#!/usr/bin/env python3
"""The corpus measure of issue 13: how many real functions meshad
differentiates correctly, per mode.

Each file of tools/corpus/functions/ holds one function `double NAME(const
double *x)` (named after the file, with its helpers) of the kinds mesh and
simulation code is made of, a `// dim: N` line and optionally a
`// point: ...` line (the base point; random inputs perturb it by up to
0.1, or lie in [0.2, 0.8] without one). For each function and mode the
script compiles a driver with the plugin and runs it:

  F  meshad::differentiate(f, "x") along a random direction,
  R  meshad::gradient(f, "x"),
  H  meshad::hvp(f, "x") along a random direction,

each against central differences of f (fourth order for first
derivatives, the mixed four-point formula for H v). A unit ends as `ok`,
`rejected` (a meshad error: the first one is reported), `WRONG` (a value
differs), or `error` (the driver did not build for another reason).

    python3 tools/corpus/run_corpus.py [--build build] [--only NAME]
        [--batch 16] [--jobs 2] [--markdown]   # the table of constructs.md

Functions are compiled --batch at a time into one translation unit (each
in a namespace of its own); a function that an error points into is then
compiled alone, all modes at once, then each mode alone.

The source files are compiled with the CPU emulation of CUDA (double3,
__host__ __device__) as in the lit tests.
"""

import argparse
import concurrent.futures
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
CLANG = '/usr/lib/llvm-22/bin/clang++'
MODES = ['F', 'R', 'H']

PRELUDE = r'''
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <meshad/Differentiator.h>
'''

BODY = r'''
%(source)s
static const char *const Name = "%(name)s";
static const int N = %(dim)d;
static double base[N] = {%(point)s};
static double fAt(const double *x) { return %(name)s(x); }
static double shifted(const double *x, int i, double h, int j, double k) {
  double y[N];
  for (int m = 0; m < N; ++m)
    y[m] = x[m];
  if (i >= 0) y[i] += h;
  if (j >= 0) y[j] += k;
  return fAt(y);
}
static double fd(const double *x, int i) {
  double h = 1e-3 * std::fmax(1.0, std::fabs(x[i]));
  return (8 * (shifted(x, i, h, -1, 0) - shifted(x, i, -h, -1, 0)) -
          (shifted(x, i, 2 * h, -1, 0) - shifted(x, i, -2 * h, -1, 0))) /
         (12 * h);
}
static double fdMixed(const double *x, const double *v, int i) {
  double y[N], h = 1e-4;
  double s[2] = {h, -h}, r = 0;
  for (int a = 0; a < 2; ++a)
    for (int b = 0; b < 2; ++b) {
      for (int m = 0; m < N; ++m)
        y[m] = x[m] + s[a] * v[m];
      r += (a == b ? 1 : -1) * shifted(y, i, s[b], -1, 0);
    }
  return r / (4 * h * h);
}
static int failures = 0;
static void check(const char *what, int i, double got, double want,
                  double tol) {
  double err = std::fabs(got - want) / std::fmax(1.0, std::fabs(want));
  if (!(err <= tol)) {
    std::printf("WRONG %%s %%s[%%d] got %%.12g expected %%.12g\n", Name, what,
                i, got, want);
    ++failures;
  }
}
static int run() {
  std::srand(7);
  double x[N], v[N];
  for (int r = 0; r < 3; ++r) {
    for (int m = 0; m < N; ++m) {
      double u = std::rand() / (double)RAND_MAX;
      x[m] = %(perturb)s;
      v[m] = 2 * (std::rand() / (double)RAND_MAX) - 1;
    }
#ifdef MODE_F
    {
      auto d = meshad::differentiate(%(name)s, "x");
      double want = 0;
      for (int m = 0; m < N; ++m)
        want += fd(x, m) * v[m];
      check("F", 0, d.execute(x, v), want, 1e-6);
    }
#endif
#ifdef MODE_R
    {
      auto g = meshad::gradient(%(name)s, "x");
      double G[N] = {};
      g.execute(x, G);
      for (int m = 0; m < N; ++m)
        check("R", m, G[m], fd(x, m), 1e-6);
    }
#endif
#ifdef MODE_H
    {
      auto h = meshad::hvp(%(name)s, "x");
      double H[N] = {};
      h.execute(x, v, H);
      for (int m = 0; m < N; ++m)
        check("H", m, H[m], fdMixed(x, v, m), 1e-4);
    }
#endif
  }
  return failures != 0;
}
'''


def parse(path):
    text = open(path).read()
    name = os.path.splitext(os.path.basename(path))[0]
    dim = int(re.search(r'// dim: (\d+)', text).group(1))
    m = re.search(r'// point: (.*)', text)
    point = m.group(1).split() if m else None
    return name, dim, point, text


def body(name, dim, point, text):
    if point:
        pts = ', '.join(point)
        perturb = 'base[m] + 0.2 * (u - 0.5)'
    else:
        pts = '0'
        perturb = '0.2 + 0.6 * u'
    return BODY % {'source': text, 'dim': dim, 'point': pts,
                   'perturb': perturb, 'name': name}


def driver(name, dim, point, text):
    return PRELUDE + body(name, dim, point, text) + \
        'int main() { return run(); }\n'


def batch_driver(units):
    """One translation unit for several functions, each in a namespace of
    its own (their #includes first). Returns the text and, per function,
    its first and last line."""
    includes, parts, spans = [], [], {}
    line = PRELUDE.count('\n')
    for name, dim, point, text in units:
        src = ''.join(l for l in text.splitlines(True)
                      if not l.startswith('#include'))
        includes += [l for l in text.splitlines(True)
                     if l.startswith('#include')]
        part = ('namespace corpus_%s {\n' % name +
                body(name, dim, point, src) + '}\n')
        parts.append(part)
    head = PRELUDE + ''.join(sorted(set(includes)))
    line = head.count('\n') + 1
    for (name, _, _, _), part in zip(units, parts):
        n = part.count('\n')
        spans[name] = (line, line + n - 1)
        line += n
    main = 'int main() {\n  int f = 0;\n' + ''.join(
        '  f |= corpus_%s::run();\n' % u[0] for u in units) + \
        '  return f;\n}\n'
    return head + ''.join(parts) + main, spans


def plugin_path(build):
    """--build is a build folder, or the plugin itself (lit's
    %meshad_plugin)."""
    return build if build.endswith('.so') else os.path.join(
        build, 'lib', 'libmeshad.so')


def compile_unit(build, src, modes, exe):
    cmd = [CLANG, '-x', 'c++', '-std=c++20', '-include',
           'meshad/cpu/CudaOnCpu.h', '-I' + os.path.join(ROOT, 'include'),
           '-pthread', '-fplugin=' + plugin_path(build),
           '-fplugin-arg-meshad-verify', '-O1', src, '-o', exe]
    cmd += ['-DMODE_' + m for m in modes]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=900)


def first_error(stderr):
    """('rejected' or 'error', the first meshad error or the first error)."""
    errs = [l for l in stderr.splitlines() if 'error:' in l]
    meshad = [l for l in errs if 'meshad' in l or 'differentiate' in l
              or 'cannot' in l]
    first = (meshad or errs or ['?'])[0]
    first = re.sub(r'^.*?error: ', '', first)
    return ('rejected' if meshad else 'error'), first


def run_unit(build, src, modes, workdir, tag):
    exe = os.path.join(workdir, tag)
    p = compile_unit(build, src, modes, exe)
    if p.returncode != 0:
        return first_error(p.stderr)
    r = subprocess.run([exe], capture_output=True, text=True, timeout=300)
    if r.returncode != 0:
        bad = [l for l in r.stdout.splitlines() if l.startswith('WRONG')]
        return 'WRONG', (bad or [r.stdout[-200:]])[0]
    return 'ok', ''


def run_alone(build, unit, work):
    """All modes at once; one at a time when that fails."""
    name, dim, point, text = unit
    src = os.path.join(work, name + '.cpp')
    with open(src, 'w') as out:
        out.write(driver(name, dim, point, text))
    status, why = run_unit(build, src, MODES, work, name)
    if status == 'ok':
        return {m: ('ok', '') for m in MODES}
    return {m: run_unit(build, src, [m], work, name + m) for m in MODES}


def failing_functions(stderr, spans, src):
    """The functions an error or its notes point into; None when one
    points elsewhere."""
    names = set()
    for m in re.finditer(r'^(.*?):(\d+):\d+: (error|note)', stderr, re.M):
        if os.path.basename(m.group(1)) != os.path.basename(src):
            continue
        line = int(m.group(2))
        hit = [n for n, (a, b) in spans.items() if a <= line <= b]
        if not hit:
            return None
        names.update(hit)
    return names or None


def run_batch(build, units, work, tag):
    """Compiles the functions of \p units in one translation unit; a
    function that an error points into is run alone. Returns name -> mode
    -> (status, detail)."""
    results = {}
    while units:
        text, spans = batch_driver(units)
        src = os.path.join(work, tag + '.cpp')
        with open(src, 'w') as out:
            out.write(text)
        exe = os.path.join(work, tag)
        p = compile_unit(build, src, MODES, exe)
        if p.returncode == 0:
            break
        bad = failing_functions(p.stderr, spans, src)
        if bad is None:  # Not attributable: every function alone.
            for u in units:
                results[u[0]] = run_alone(build, u, work)
            return results
        for u in units:
            if u[0] in bad:
                results[u[0]] = run_alone(build, u, work)
        units = [u for u in units if u[0] not in bad]
    if not units:
        return results
    r = subprocess.run([exe], capture_output=True, text=True, timeout=600)
    wrong = {}
    for l in r.stdout.splitlines():
        f = l.split()
        if f and f[0] == 'WRONG':
            wrong.setdefault((f[1], f[2][0]), l)
    for name, _, _, _ in units:
        results[name] = {m: ('WRONG', wrong[(name, m)])
                         if (name, m) in wrong else ('ok', '')
                         for m in MODES}
    if r.returncode != 0 and not wrong:  # A crash: each function alone.
        for u in units:
            results[u[0]] = run_alone(build, u, work)
    return results


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--build', default=os.path.join(ROOT, 'build'),
                    help='the build folder, or the plugin (libmeshad.so)')
    ap.add_argument('--only', help='names starting with one of these '
                    'comma-separated prefixes')
    ap.add_argument('--markdown', action='store_true')
    ap.add_argument('--batch', type=int, default=16,
                    help='functions per translation unit (1: each alone)')
    ap.add_argument('--jobs', type=int, default=2)
    args = ap.parse_args()
    folder = os.path.join(ROOT, 'tools', 'corpus', 'functions')
    files = sorted(f for f in os.listdir(folder) if f.endswith('.cpp'))
    if args.only:
        prefixes = tuple(args.only.split(','))
        files = [f for f in files if f.startswith(prefixes)]
    units = [parse(os.path.join(folder, f)) for f in files]
    chunks = [units[i:i + max(1, args.batch)]
              for i in range(0, len(units), max(1, args.batch))]
    results = {}
    with tempfile.TemporaryDirectory() as work:
        with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
            futures = [pool.submit(run_batch, args.build, c, work, 'batch%d' % k)
                       for k, c in enumerate(chunks)]
            for f in futures:
                results.update(f.result())
    for name, _, _, _ in units:
        row = ' '.join('%s:%s' % (m, results[name][m][0]) for m in MODES)
        print('%-24s %s' % (name, row), flush=True)
        for m in MODES:
            if results[name][m][1]:
                print('    %s: %s' % (m, results[name][m][1]), flush=True)
    total = len(results)
    print()
    for m in MODES:
        ok = sum(1 for r in results.values() if r[m][0] == 'ok')
        rej = sum(1 for r in results.values() if r[m][0] == 'rejected')
        wrong = sum(1 for r in results.values() if r[m][0] == 'WRONG')
        err = total - ok - rej - wrong
        print('%s: %d/%d ok, %d rejected, %d WRONG, %d other errors' %
              (m, ok, total, rej, wrong, err))
    if args.markdown:
        print('\n| function | forward | reverse | HVP |\n|---|---|---|---|')
        for name, r in results.items():
            print('| `%s` | %s |' % (name, ' | '.join(r[m][0] for m in MODES)))
    return 1 if any(r[m][0] == 'WRONG' for r in results.values()
                    for m in MODES) else 0


if __name__ == '__main__':
    sys.exit(main())
