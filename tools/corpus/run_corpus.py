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
        [--markdown]   # the table of docs/constructs.md

The source files are compiled with the CPU emulation of CUDA (double3,
__host__ __device__) as in the lit tests.
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
CLANG = '/usr/lib/llvm-22/bin/clang++'
MODES = ['F', 'R', 'H']

DRIVER = r'''
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <meshad/Differentiator.h>
%(source)s
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
    std::printf("WRONG %%s[%%d] got %%.12g expected %%.12g\n", what, i, got,
                want);
    ++failures;
  }
}
int main() {
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
  std::printf("failures: %%d\n", failures);
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


def driver(name, dim, point, text):
    if point:
        pts = ', '.join(point)
        perturb = 'base[m] + 0.2 * (u - 0.5)'
    else:
        pts = '0'
        perturb = '0.2 + 0.6 * u'
    return DRIVER % {'source': text, 'dim': dim, 'point': pts,
                     'perturb': perturb, 'name': name}


def run_unit(build, src, modes, workdir, tag):
    exe = os.path.join(workdir, tag)
    cmd = [CLANG, '-x', 'c++', '-std=c++20', '-include',
           'meshad/cpu/CudaOnCpu.h', '-I' + os.path.join(ROOT, 'include'),
           '-pthread', '-fplugin=' + os.path.join(build, 'lib', 'libmeshad.so'),
           '-fplugin-arg-meshad-verify', '-O1', src, '-o', exe]
    cmd += ['-DMODE_' + m for m in modes]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    if p.returncode != 0:
        errs = [l for l in p.stderr.splitlines() if 'error:' in l]
        meshad = [l for l in errs if 'meshad' in l or 'differentiate' in l
                  or 'cannot' in l]
        first = (meshad or errs or ['?'])[0]
        first = re.sub(r'^.*?error: ', '', first)
        return ('rejected' if meshad else 'error'), first
    r = subprocess.run([exe], capture_output=True, text=True, timeout=120)
    if r.returncode != 0:
        bad = [l for l in r.stdout.splitlines() if l.startswith('WRONG')]
        return 'WRONG', (bad or [r.stdout[-200:]])[0]
    return 'ok', ''


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--build', default=os.path.join(ROOT, 'build'))
    ap.add_argument('--only')
    ap.add_argument('--markdown', action='store_true')
    args = ap.parse_args()
    folder = os.path.join(ROOT, 'tools', 'corpus', 'functions')
    files = sorted(f for f in os.listdir(folder) if f.endswith('.cpp'))
    if args.only:
        files = [f for f in files if f.startswith(args.only)]
    results = {}
    with tempfile.TemporaryDirectory() as work:
        for f in files:
            name, dim, point, text = parse(os.path.join(folder, f))
            src = os.path.join(work, name + '.cpp')
            with open(src, 'w') as out:
                out.write(driver(name, dim, point, text))
            # All modes at once; one at a time when that fails.
            status, why = run_unit(args.build, src, MODES, work, name)
            if status == 'ok':
                results[name] = {m: ('ok', '') for m in MODES}
            else:
                results[name] = {m: run_unit(args.build, src, [m], work,
                                             name + m) for m in MODES}
            row = ' '.join('%s:%s' % (m, results[name][m][0]) for m in MODES)
            print('%-18s %s' % (name, row), flush=True)
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
