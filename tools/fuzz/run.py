"""Compiles and runs units of the meshad fuzzer and classifies them.

Many units share one translation unit (a batch); a batch that does not
compile is split: programs that the errors point at are compiled alone, the
rest together again; a batch whose errors cannot be attributed (or whose
compiler crashed) is bisected. A binary that crashes or hangs is rerun one
unit at a time.

Classes of a unit: ok, skipped (every check skipped: kinks everywhere),
rejected (a meshad error), WRONG, UNCOMPILABLE (clang errors in code that
meshad generated: with meshad errors clang reports nothing else), CRASH
(the compiler or the test binary crashed or hung), INVALID (the generated
program itself does not compile: a bug of the fuzzer).
"""

import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time

from harness import HEADER, translationUnit

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
CLANG = '/usr/lib/llvm-22/bin/clang++'
MODE_FLAGS = {
    'cpp': ['-std=c++17'],
    'cuda': ['-x', 'c++', '-std=c++20', '-include', 'meshad/cpu/CudaOnCpu.h',
             '-pthread'],
}
FAILING = ('WRONG', 'UNCOMPILABLE', 'CRASH', 'INVALID')
ERROR_RE = re.compile(r'^(?P<file>[^:\s][^:]*):(?P<line>\d+):(?P<col>\d+): '
                      r'(?:fatal )?error: (?P<msg>.*)$')
NOTE_RE = re.compile(r'^(?P<file>[^:\s][^:]*):(?P<line>\d+):(?P<col>\d+): '
                     r'note: ')
CRASH_RE = re.compile(r'PLEASE submit a bug report|Stack dump:|LLVM ERROR|'
                      r'Assertion .* failed|UNREACHABLE')
FUNC_RE = re.compile(r'^\S.*?\bp(\d+)_\w*\s*\(')


class Outcome:
    def __init__(self, unit, cls, msg='', detail=''):
        self.unit = unit
        self.cls = cls
        self.msg = msg        # one line: the first error or failure
        self.detail = detail  # the relevant output


def normalize(msg):
    """A diagnostic without the names it quotes (to count by message)."""
    msg = re.sub(r"'[^']*'", "'X'", msg)
    msg = re.sub(r'\bp\d+_\w+', 'F', msg)
    return re.sub(r'\d+', 'N', msg).strip()


class Runner:
    def __init__(self, plugin, keepDir, selfTest=False, compileTimeout=300,
                 runTimeout=60, extraFlags=()):
        self.plugin = os.path.abspath(plugin)
        self.keepDir = os.path.abspath(keepDir)
        self.selfTest = selfTest
        self.compileTimeout = compileTimeout
        self.runTimeout = runTimeout
        self.extraFlags = list(extraFlags)
        self.compiles = 0
        self.pch = {}  # mode -> precompiled header
        self.compileSecs = 0.0  # summed over jobs
        self.runSecs = 0.0

    # --- compiling --------------------------------------------------------

    def flags(self, mode, pch=True, plugin=True):
        f = [CLANG] + MODE_FLAGS[mode]
        if pch and self.pch.get(mode):
            f = [a for a in f if a != '-include' and a[-2:] != '.h']
            f += ['-include-pch', self.pch[mode]]
        f += ['-O0', '-w', '-ferror-limit=0', '-fno-color-diagnostics']
        if plugin:
            # The IR verifier on: a malformed generated function is a
            # compile error (counted as uncompilable), not a wrong result.
            f += ['-fplugin=' + self.plugin, '-fplugin-arg-meshad-verify']
        f += ['-I', os.path.join(ROOT, 'include'), '-I', HERE]
        if self.selfTest:
            f.append('-DMESHAD_FUZZ_SELFTEST')
        return f + self.extraFlags

    def preparePch(self, modes):
        """Precompiles the headers every test includes (the CUDA emulation
        and the C++ library): a third of a compile's time otherwise."""
        d = os.path.join(self.keepDir, 'pch')
        os.makedirs(d, exist_ok=True)
        for mode in modes:
            h = os.path.join(d, mode + '.h')
            with open(h, 'w') as f:
                if mode == 'cuda':
                    f.write('#include <meshad/cpu/CudaOnCpu.h>\n')
                f.write(HEADER)
            out = h + '.pch'
            cmd = self.flags(mode, pch=False, plugin=False)
            cmd = [a for a in cmd if a not in ('-x', 'c++')]
            cmd = [a for a in cmd if a != '-include' and a[-2:] != '.h']
            cmd += ['-x', 'c++-header', h, '-o', out]
            p = subprocess.run(cmd, capture_output=True, text=True)
            if p.returncode != 0:
                print('meshad-fuzz: no precompiled header for %s:\n%s' % (
                    mode, p.stderr))
                continue
            self.pch[mode] = out

    def compile(self, units, work):
        """Returns (status, errors, stderr, exe): status is ok, meshad,
        clang, crash or timeout; errors [(program index or None, msg)]."""
        src, _ = translationUnit(units)
        mode = units[0].prog.mode()
        ext = '.cu' if mode == 'cuda' else '.cpp'
        path = os.path.join(work, 'batch' + ext)
        with open(path, 'w') as f:
            f.write(src)
        dump = os.path.join(work, 'dump')
        os.makedirs(dump, exist_ok=True)
        aug = os.path.join(dump, 'batch' + ext)
        if os.path.exists(aug):
            os.remove(aug)
        exe = os.path.join(work, 'batch')
        cmd = self.flags(mode) + [
            '-fplugin-arg-meshad-dump-dir=' + dump,
            '-fplugin-arg-meshad-no-line-directives', path, '-o', exe]
        self.compiles += 1
        t0 = time.time()
        try:
            p = subprocess.run(cmd, capture_output=True, text=True,
                               timeout=self.compileTimeout, errors='replace')
        except subprocess.TimeoutExpired:
            self.compileSecs += time.time() - t0
            return 'timeout', [], 'compiler timed out after %ds' % \
                self.compileTimeout, None
        self.compileSecs += time.time() - t0
        err = p.stderr
        if p.returncode == 0:
            return 'ok', [], err, exe
        if p.returncode < 0 or p.returncode > 1 or CRASH_RE.search(err):
            return 'crash', [], err, None
        generated = os.path.exists(aug) and open(aug).read() != src
        text = open(aug).read() if generated else src
        return ('clang' if generated else 'meshad'), \
            self.attribute(err, path, text), err, None

    def attribute(self, err, path, text):
        """[(program index or None, message)] of each error: the program of
        the function around the error's line, or of the notes after it
        (instantiations requested from the main file)."""
        lines = text.split('\n')
        out = []
        cur = None

        def owner(n):
            for k in range(min(n, len(lines)) - 1, -1, -1):
                m = FUNC_RE.match(lines[k])
                if m:
                    return int(m.group(1))
                if lines[k].startswith('// program '):
                    return int(lines[k].split()[2])
            return None

        for line in err.split('\n'):
            m = ERROR_RE.match(line)
            if m:
                main = os.path.abspath(m.group('file')) == path
                cur = [owner(int(m.group('line'))) if main else None,
                       m.group('msg')]
                out.append(cur)
                continue
            m = NOTE_RE.match(line)
            if m and cur is not None and cur[0] is None and \
                    os.path.abspath(m.group('file')) == path:
                cur[0] = owner(int(m.group('line')))
            if 'undefined reference' in line or 'ld returned' in line:
                out.append([None, line.strip()])
        return [tuple(e) for e in out]

    # --- running ----------------------------------------------------------

    def execute(self, exe, units, work):
        names = [u.name for u in units]
        res = {}
        out, status = self.runExe(exe, [], self.runTimeout + 5 * len(units))
        self.parse(out, units, res)
        left = [u for u in units if u.name not in res]
        for u in left:
            out1, status1 = self.runExe(exe, [u.name], self.runTimeout)
            self.parse(out1, [u], res)
            if u.name not in res:
                res[u.name] = Outcome(u, 'CRASH', 'test binary: ' + status1,
                                      tail(out1))
        return [res[n] for n in names]

    def runExe(self, exe, args, timeout):
        t0 = time.time()
        try:
            return self.runExe1(exe, args, timeout)
        finally:
            self.runSecs += time.time() - t0

    def runExe1(self, exe, args, timeout):
        try:
            p = subprocess.run([exe] + args, capture_output=True, text=True,
                               timeout=timeout, errors='replace')
        except subprocess.TimeoutExpired as e:
            o = e.stdout or b''
            o = o.decode(errors='replace') if isinstance(o, bytes) else o
            return o, 'timed out after %ds' % timeout
        if p.returncode < 0:
            try:
                st = signal.Signals(-p.returncode).name
            except ValueError:
                st = 'signal %d' % -p.returncode
        else:
            st = 'exit status %d' % p.returncode
        return p.stdout + p.stderr, st

    def parse(self, out, units, res):
        byName = {u.name: u for u in units}
        fails = {}
        for line in out.split('\n'):
            if line.startswith('FAIL '):
                parts = line.split(' ', 2)
                fails.setdefault(parts[1], []).append(line)
            m = re.match(r'@@END (\S+) pass (\d+) fail (\d+) skip (\d+)', line)
            if m and m.group(1) in byName:
                u = byName[m.group(1)]
                p, f, s = (int(m.group(k)) for k in (2, 3, 4))
                if f:
                    fl = fails.get(u.name, [])
                    res[u.name] = Outcome(
                        u, 'WRONG', fl[0] if fl else 'FAIL',
                        '%d of %d checks failed (%d skipped)\n%s' % (
                            f, p + f, s, '\n'.join(fl)))
                elif p:
                    res[u.name] = Outcome(u, 'ok', '', '%d passed, %d skipped'
                                          % (p, s))
                else:
                    res[u.name] = Outcome(u, 'skipped', '',
                                          '%d skipped' % s)

    # --- classification ---------------------------------------------------

    def classify(self, units):
        """Outcomes of `units` (all of one mode)."""
        work = tempfile.mkdtemp(prefix='meshad-fuzz-')
        try:
            out = self.group(units, work)
            self.checkPrimals(out, work)
            return out
        finally:
            shutil.rmtree(work, ignore_errors=True)

    def group(self, units, work):
        if not units:
            return []
        status, errors, err, exe = self.compile(units, work)
        if status == 'ok':
            return self.execute(exe, units, work)
        if len(units) == 1:
            return [self.fromErrors(units[0], status, errors, err)]
        if status in ('meshad', 'clang'):
            modes = sorted(set(u.mode for u in units))
            if len(modes) > 1:
                # Errors in a program say nothing about the mode: split.
                return sum((self.group([u for u in units if u.mode == m],
                                       work) for m in modes), [])
            bad = set(e[0] for e in errors)
            if bad and None not in bad:
                out, rest = [], []
                for u in units:
                    if u.index in bad:
                        out.append(self.fromErrors(
                            u, status, [e for e in errors if e[0] == u.index],
                            err))
                    else:
                        rest.append(u)
                return out + self.group(rest, work)
        h = len(units) // 2
        return self.group(units[:h], work) + self.group(units[h:], work)

    def fromErrors(self, u, status, errors, err):
        first = errors[0][1] if errors else first_line(err)
        detail = '\n'.join(e[1] for e in errors) if errors else err
        if status == 'meshad':
            msgs = sorted(set(normalize(e[1]) for e in errors))
            return Outcome(u, 'rejected', ' | '.join(msgs) or first, detail)
        if status == 'clang':
            return Outcome(u, 'UNCOMPILABLE', first, detail)
        return Outcome(u, 'CRASH', 'compiler %s: %s' % (status, first), err)

    def checkPrimals(self, outcomes, work):
        """Marks INVALID the rejected or uncompilable units whose program
        itself does not compile without the plugin (a generator bug)."""
        progs = {}
        for o in outcomes:
            if o.cls in ('rejected', 'UNCOMPILABLE'):
                progs[o.unit.index] = o.unit
        if not progs:
            return
        units = list(progs.values())
        mode = units[0].prog.mode()
        src = '#include <algorithm>\n#include <cmath>\n' + ''.join(
            '// program %d\n%s\n' % (u.index, u.prog.source(u.prefix))
            for u in units) + 'int main() {}\n'
        path = os.path.join(work, 'primal' + ('.cu' if mode == 'cuda'
                                               else '.cpp'))
        with open(path, 'w') as f:
            f.write(src)
        cmd = self.flags(mode, plugin=False) + ['-fsyntax-only', path]
        self.compiles += 1
        p = subprocess.run(cmd, capture_output=True, text=True,
                           errors='replace')
        if p.returncode == 0:
            return
        bad = {}
        for idx, msg in self.attribute(p.stderr, path, src):
            bad.setdefault(idx, msg)
        for o in outcomes:
            if o.unit.index in bad or None in bad and \
                    o.unit.index in progs:
                o.cls = 'INVALID'
                o.msg = 'the program itself does not compile: %s' % bad.get(
                    o.unit.index, bad.get(None))

    # --- reproducers ------------------------------------------------------

    def keep(self, o, d=None):
        """Writes a self-contained reproducer of an outcome."""
        u = o.unit
        d = d or os.path.join(self.keepDir, 'failures', o.cls, u.name)
        os.makedirs(d, exist_ok=True)
        src, _ = translationUnit([u])
        mode = u.prog.mode()
        name = 'repro.cu' if mode == 'cuda' else 'repro.cpp'
        with open(os.path.join(d, name), 'w') as f:
            f.write(src)
        shutil.copy(os.path.join(HERE, 'FuzzCheck.h'), d)
        flags = self.flags(mode, pch=False)
        i = flags.index(HERE)
        del flags[i - 1:i + 1]
        cmd = ' '.join(quote(a) for a in flags)
        with open(os.path.join(d, 'run.sh'), 'w') as f:
            f.write('#!/bin/sh\n# %s %s: %s\ncd "$(dirname "$0")" && \\\n'
                    '%s -I. -fplugin-arg-meshad-dump %s -o repro 2> dump.txt'
                    ' && ./repro\n' % (o.cls, u.name, o.msg.replace('\n', ' '),
                                       cmd, name))
        os.chmod(os.path.join(d, 'run.sh'), 0o755)
        with open(os.path.join(d, 'output.txt'), 'w') as f:
            f.write(o.msg + '\n\n' + o.detail)
        with open(os.path.join(d, 'info.json'), 'w') as f:
            json.dump({'unit': u.name, 'mode': u.mode, 'class': o.cls,
                       'msg': o.msg, 'origin': getattr(u.prog, 'origin', {}),
                       'family': u.prog.family,
                       'features': sorted(u.prog.features)}, f, indent=1)
        return d


def first_line(err):
    for line in err.split('\n'):
        if line.strip():
            return line.strip()
    return ''


def tail(s, n=20):
    return '\n'.join(s.rstrip('\n').split('\n')[-n:])


def quote(a):
    return a if re.match(r'^[\w@%+=:,./-]+$', a) else "'%s'" % a
