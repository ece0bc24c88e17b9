#!/usr/bin/env python3
"""meshad-fuzz: the differential fuzzer of meshad.

Generates random well-defined programs (host functions with helpers, and
CUDA kernels run on the CPU emulation), differentiates each in forward mode
(one request per scalar parameter, array element or whole array) and in
reverse mode (the gradient w.r.t. every differentiable parameter), and
checks every derivative against fourth-order central finite differences.
Each unit (a program in one mode) is ok, skipped (all checks next to
kinks), rejected (a meshad error: counted by message), or a failure: WRONG,
UNCOMPILABLE or CRASH, kept as a reproducer under KEEP_DIR/failures/.

  tools/fuzz/meshad-fuzz.py --seed 1 --count 200 --jobs 2
  tools/fuzz/meshad-fuzz.py --seed 1 --only 17 --keep-dir /tmp/f   # one
  tools/fuzz/meshad-fuzz.py --self-test --count 10   # must report WRONG
  tools/fuzz/meshad-fuzz.py --reduce /tmp/f/failures/WRONG/p17R

Exit status with --fail-on-error: 1 when anything is WRONG, UNCOMPILABLE or
CRASH. With --self-test (expected values perturbed): 0 only when every unit
that checked anything reported WRONG.
"""

import argparse
import json
import os
import random
import sys
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor, as_completed

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import gen  # noqa: E402
from gen_host import hostProgram  # noqa: E402
from gen_kernel import kernelProgram  # noqa: E402
from gen_pipeline import pipelineProgram  # noqa: E402
from harness import Unit, hvpEligible, hessianEligible  # noqa: E402
from run import FAILING, ROOT, Runner  # noqa: E402

ORDER = ['INVALID', 'CRASH', 'UNCOMPILABLE', 'WRONG', 'rejected', 'skipped',
         'ok']
KERNEL_SHARE = 0.35
PIPELINE_SHARE = 0.1  # of mixed runs: host code that launches kernels
MAKERS = {'host': hostProgram, 'kernel': kernelProgram,
          'pipeline': pipelineProgram}


def makeProgram(seed, index, family):
    s = seed * 1000003 + index
    if family == 'mixed':
        x = random.Random(s).random()
        family = 'kernel' if x < KERNEL_SHARE else 'pipeline' \
            if x < KERNEL_SHARE + PIPELINE_SHARE else 'host'
    p = MAKERS[family](s)
    p.origin = {'seed': seed, 'index': index, 'disable': sorted(gen.DISABLED)}
    return p


def parseArgs(argv):
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--count', type=int, default=100,
                    help='number of programs (default 100)')
    ap.add_argument('--first', type=int, default=0,
                    help='number of the first program (default 0)')
    ap.add_argument('--only', default='',
                    help='comma-separated program numbers to run')
    ap.add_argument('--jobs', type=int, default=2)
    ap.add_argument('--batch', type=int, default=20,
                    help='programs per translation unit (default 20)')
    ap.add_argument('--keep-dir', default='fuzz-out')
    ap.add_argument('--plugin',
                    default=os.path.join(ROOT, 'build/lib/libmeshad.so'))
    ap.add_argument('--family', choices=['mixed', 'host', 'kernel', 'pipeline'],
                    default='mixed')
    ap.add_argument('--modes', default='FR',
                    help='any of F (forward), R (reverse), H (Hessian-vector '
                    'products: kernels, and host programs that return a '
                    'value and write no array), D (dense local Hessians, '
                    'meshad::hessian: host programs of H); default FR')
    ap.add_argument('--disable', default='',
                    help='comma-separated constructs not to generate: ' +
                    ', '.join(sorted(gen.TOGGLES)))
    ap.add_argument('--self-test', action='store_true',
                    help='perturb every expected value: each unit must fail')
    ap.add_argument('--fail-on-error', action='store_true')
    ap.add_argument('--reduce', metavar='FAILURE_DIR',
                    help='reduce the failure kept in FAILURE_DIR')
    ap.add_argument('--no-pch', action='store_true',
                    help='do not precompile the common headers')
    ap.add_argument('--quiet', action='store_true')
    return ap.parse_args(argv)


def main(argv):
    a = parseArgs(argv)
    for t in filter(None, a.disable.split(',')):
        if t not in gen.TOGGLES:
            sys.exit('meshad-fuzz: unknown construct %r; one of %s' % (
                t, ', '.join(sorted(gen.TOGGLES))))
        gen.DISABLED.add(t)
    if 'H' in a.modes:
        # Kernels in the shapes whose output seeds meshad::hvp keeps.
        gen.DISABLED.add('output-reuse')
        gen.DISABLED.add('dynamic-shared')  # No HVPs of dynamic shared memory
    if not os.path.exists(a.plugin):
        sys.exit('meshad-fuzz: no plugin at %s (build it: scripts/build.sh)'
                 % a.plugin)
    runner = Runner(a.plugin, a.keep_dir, selfTest=a.self_test)
    if a.reduce:
        from reduce import reduceFailure
        return reduceFailure(runner, a.reduce, makeProgram)
    os.makedirs(a.keep_dir, exist_ok=True)
    indices = [int(x) for x in a.only.split(',')] if a.only else \
        list(range(a.first, a.first + a.count))
    t0 = time.time()
    progs = {i: makeProgram(a.seed, i, a.family) for i in indices}
    batches = []
    for mode in ('cpp', 'cuda'):
        ids = [i for i in indices if progs[i].mode() == mode]
        for k in range(0, len(ids), a.batch):
            batches.append([Unit(progs[i], i, m) for i in ids[k:k + a.batch]
                            for m in a.modes
                            if (m != 'H' or hvpEligible(progs[i])) and
                            (m != 'D' or hessianEligible(progs[i]))])
    if not a.no_pch:
        runner.preparePch(sorted(set(p.mode() for p in progs.values())))
    outcomes = []
    kept = Counter()
    with ThreadPoolExecutor(max_workers=a.jobs) as pool:
        futs = [pool.submit(runner.classify, b) for b in batches]
        for f in as_completed(futs):
            for o in f.result():
                outcomes.append(o)
                if o.cls in FAILING:
                    d = runner.keep(o)
                    print('%s %s: %s\n    %s' % (o.cls, o.unit.name,
                                                 o.msg[:300], d), flush=True)
                elif o.cls == 'rejected':
                    kept[o.msg] += 1
                    if kept[o.msg] <= 3:  # a few examples of each message
                        runner.keep(o)
            if not a.quiet:
                print('... %d of %d units, %.0f s' % (
                    len(outcomes), sum(len(b) for b in batches),
                    time.time() - t0), flush=True)
    return report(a, progs, outcomes, runner, time.time() - t0)


def report(a, progs, outcomes, runner, secs):
    units = Counter(o.cls for o in outcomes)
    worst = {}
    for o in outcomes:
        i = o.unit.index
        if i not in worst or ORDER.index(o.cls) < ORDER.index(worst[i]):
            worst[i] = o.cls
    programs = Counter(worst.values())
    fam = Counter(p.family for p in progs.values())
    rejected = Counter()
    for o in outcomes:
        if o.cls == 'rejected':
            for m in o.msg.split(' | '):
                rejected[(o.unit.mode, m)] += 1
    lines = ['meshad-fuzz: seed %d, %d programs (%d host, %d kernel%s), %d '
             'units, %d compiles, %.0f s%s' % (
                 a.seed, len(progs), fam['host'], fam['kernel'],
                 ', %d pipeline' % fam['pipeline'] if fam['pipeline'] else '',
                 len(outcomes), runner.compiles, secs,
                 ', disabled: ' + a.disable if a.disable else ''),
             'time (summed over jobs): compiling %.0f s, running %.0f s' % (
                 runner.compileSecs, runner.runSecs),
             'units:    ' + counts(units),
             'programs: ' + counts(programs),
             'by mode:  F ' + counts(Counter(o.cls for o in outcomes
                                             if o.unit.mode == 'F')) +
             ';  R ' + counts(Counter(o.cls for o in outcomes
                                      if o.unit.mode == 'R')) +
             ';  H ' + counts(Counter(o.cls for o in outcomes
                                      if o.unit.mode == 'H')) +
             ';  D ' + counts(Counter(o.cls for o in outcomes
                                      if o.unit.mode == 'D'))]
    if rejected:
        lines.append('rejected units, by message (mode):')
        for (mode, m), n in rejected.most_common():
            lines.append('  %5d %s  %s' % (n, mode, m[:200]))
    fails = sorted((o for o in outcomes if o.cls in FAILING),
                   key=lambda o: (o.cls, o.unit.index, o.unit.mode))
    if fails:
        lines.append('failures:')
        for o in fails:
            lines.append('  %-12s %-7s %s' % (o.cls, o.unit.name,
                                              o.msg[:200]))
    text = '\n'.join(lines) + '\n'
    with open(os.path.join(a.keep_dir, 'summary.txt'), 'w') as f:
        f.write(text)
    with open(os.path.join(a.keep_dir, 'summary.json'), 'w') as f:
        json.dump({'seed': a.seed, 'programs': len(progs),
                   'units': dict(units), 'program_classes': dict(programs),
                   'outcomes': [{'unit': o.unit.name, 'class': o.cls,
                                 'msg': o.msg,
                                 'features': sorted(o.unit.prog.features)}
                                for o in outcomes]}, f, indent=1)
    print(text, end='')
    if a.self_test:
        checked = [o for o in outcomes if o.cls in ('ok', 'WRONG')]
        good = checked and all(o.cls == 'WRONG' for o in checked)
        print('self-test: %d units checked something, %d of them reported '
              'WRONG: %s' % (len(checked), units['WRONG'],
                             'OK' if good else 'FAILED'))
        return 0 if good else 1
    if a.fail_on_error and any(units[c] for c in FAILING):
        return 1
    return 0


def counts(c):
    return '  '.join('%s %d' % (k, c[k]) for k in ORDER if c[k]) or 'none'


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
