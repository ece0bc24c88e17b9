"""A reducer for failures of the meshad fuzzer.

Regenerates the program of a kept failure (from its info.json), then
deletes what it can while the unit fails the same way: forward requests
other than the failing ones, whole helper functions, statements (one at a
time, innermost lists first), `if` statements replaced by one of their
branches, loops replaced by their bodies' statements where they compile.
Statements that keep the program well defined (loop counter increments,
the fill loops of local arrays, the writes every output gets) are never
deleted. The reduced reproducer is written to <failure>/reduced/.

"Fails the same way": the same class; for rejected and uncompilable units
the same first diagnostic (names normalised); for wrong units a failing
check of the same kind (the same derivative, ignoring the element).
"""

import json
import os
import re
import sys

import gen
from harness import Unit
from model import If
from run import normalize


def signature(o, first=False):
    """What must stay the same: the names of the failing checks (the first
    one only for the original failure, so that a reduction does not drift
    to another bug), the first diagnostic, or the kind of crash."""
    if o.cls == 'WRONG':
        return checkNames(o.msg if first else o.detail or o.msg)
    if o.cls == 'CRASH':
        return {o.msg.split(':')[0]}
    return {normalize(o.msg.split(' | ')[0])}


def checkNames(text):
    names = set()
    for line in text.split('\n'):
        m = re.match(r'FAIL \S+ (\S+)( \(adjoint seeded 0.5\))?', line)
        if m:
            names.add(re.sub(r'\[\d+\]', '[]', m.group(1)) +
                      (' seeded' if m.group(2) else ''))
    return names


class Reducer:
    def __init__(self, runner, prog, index, mode, cls, sig):
        self.runner = runner
        self.prog = prog
        self.index = index
        self.mode = mode
        self.cls = cls
        self.sig = sig
        self.tests = 0

    def fails(self):
        self.tests += 1
        try:
            o = self.runner.classify([Unit(self.prog, self.index, self.mode)])[0]
        except Exception as e:  # a program the harness cannot render
            print('reduce: %s' % e, file=sys.stderr)
            return False
        return o.cls == self.cls and bool(signature(o) & self.sig)

    def attempt(self, apply, undo):
        apply()
        if self.fails():
            return True
        undo()
        return False

    def reduceSpecs(self):
        specs = self.prog.fwdSpecs
        for s in list(specs):
            if len(specs) == 1:
                break
            i = specs.index(s)
            self.attempt(lambda: specs.pop(i), lambda: specs.insert(i, s))

    def reduceHelpers(self):
        hs = self.prog.helpers
        for f in list(hs):
            i = hs.index(f)
            self.attempt(lambda: hs.pop(i), lambda: hs.insert(i, f))

    def reduceStatements(self):
        changed = True
        while changed:
            changed = False
            for body in reversed(self.prog.allBodies()):
                i = len(body) - 1
                while i >= 0:
                    if i < len(body) and self.reduceAt(body, i):
                        changed = True
                    i -= 1

    def reduceAt(self, body, i):
        s = body[i]
        if s.deletable and self.attempt(lambda: body.pop(i),
                                        lambda: body.insert(i, s)):
            return True
        subs = s.bodies() if isinstance(s, If) and not s.guard else []
        for sub in subs:
            def apply(sub=sub):
                body[i:i + 1] = sub

            def undo(sub=sub):
                del body[i:i + len(sub)]
                body.insert(i, s)
            if self.attempt(apply, undo):
                return True
        return False

    def run(self):
        if not self.fails():
            print('reduce: the failure does not reproduce', file=sys.stderr)
            return False
        if self.mode == 'F':
            self.reduceSpecs()
        self.reduceHelpers()
        self.reduceStatements()
        self.reduceHelpers()
        return True


def reduceFailure(runner, failureDir, makeProgram):
    with open(os.path.join(failureDir, 'info.json')) as f:
        info = json.load(f)
    origin = info['origin']
    gen.DISABLED.clear()
    gen.DISABLED.update(origin.get('disable', []))
    prog = makeProgram(origin['seed'], origin['index'], info['family'])
    mode = info['mode']
    index = origin['index']
    runner.preparePch([prog.mode()])
    first = runner.classify([Unit(prog, index, mode)])[0]
    if first.cls != info['class']:
        print('reduce: %s is now %s' % (info['unit'], first.cls))
        return 1
    red = Reducer(runner, prog, index, mode, first.cls,
                  signature(first, first=True))
    print('reduce: %s %s, signature %s' % (info['unit'], first.cls,
                                           sorted(red.sig)))
    if not red.run():
        return 1
    last = runner.classify([Unit(prog, index, mode)])[0]
    d = os.path.join(failureDir, 'reduced')
    runner.keep(last, d)
    print('reduce: %d tests; reduced reproducer in %s (%s: %s)' % (
        red.tests, d, last.cls, last.msg[:200]))
    print(prog.source('p%d_' % index))
    return 0
