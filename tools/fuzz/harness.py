"""C++ test code for generated programs: one function per unit (a program
in one mode) that compares meshad's derivatives with finite differences
(tools/fuzz/FuzzCheck.h), and translation units holding many units.

Forward mode ('F'): one `meshad::differentiate` request per entry of
`prog.fwdSpecs` (a scalar, an element `p[k]`, or a whole array with a random
direction); each output (the return value and every written array) is
checked against the finite differences of the primal along the same
direction. The derived function takes the primal's arguments, then one
tangent per array that is selected as a whole or written (in parameter
order): the direction, or zeros for what is not selected.

Reverse mode ('R'): `meshad::gradient(f, "")` with the loss
L = ret + sum_a sum_k w_a[k] a_final[k] over every array (for a const array
its final contents are its initial ones); each array adjoint is seeded with
its weights and must end as dL/d(initial input); scalar adjoints start at 0
at the first point and at 0.5 at the others (adjoints accumulate).

Hessian-vector products ('H'): `meshad::hvp(f, "")` along random directions
of every input (double and const array parameters); each result must equal
the finite difference, along the direction, of `meshad::gradient(f, "")`
(itself checked by 'R'); results start at 0 at the first point and at 0.25
at the others (they accumulate). Host programs that return a value and
write no array: the Hessian of the return value. Kernels: the Hessian of
the seeded sum of the outputs, sum_a sum_k w_a[k] a_final[k] (an atomicAdd
energy E, per-element outputs y, in-place v, scatters g); the HVP reads the
weights as its seeds (KeepSeeds), the reference gradient is seeded with
them, and both run under the CPU emulation on fresh copies of the outputs'
initial contents.

Dense local Hessians ('D'): `meshad::hessian(f, "a, p[1:4]")` of the host
programs of 'H' over every double parameter and a random range of at most 3
elements of each const array (at most 6 inputs): column j against the
central differences of `meshad::gradient(f, "")` along input j, and H v
against `meshad::hvp(f, "")` along a random direction on the selected
inputs (zero elsewhere).
"""

import random

HEADER = """#include <meshad/Differentiator.h>
#include "FuzzCheck.h"
#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
"""

NPOINTS = {'host': 3, 'kernel': 2, 'pipeline': 2}
MAX_REV_ELEMS = 10  # kernels: adjoint elements checked per array


class Unit:
    def __init__(self, prog, index, mode):
        self.prog = prog
        self.index = index   # program number in the run
        self.mode = mode     # 'F' or 'R'

    @property
    def name(self):
        return 'p%d%s' % (self.index, self.mode)

    @property
    def prefix(self):
        return 'p%d_' % self.index


def _inputs(prog, out):
    """Declarations of the arguments at one point (a_*, initial i_*)."""
    for q in prog.params:
        if q.kind == 'double':
            out.append('    double a_%s = R.uniform(-1.5, 1.5);' % q.name)
        elif q.kind == 'int':
            out.append('    int a_%s = %d;' % (q.name, q.value))
        elif q.kind == 'carr':
            out.append('    double a_%s[%d];' % (q.name, q.size))
            out.append('    R.fill(a_%s, %d, -1.5, 1.5);' % (q.name, q.size))
        else:
            out.append('    double i_%s[%d];' % (q.name, q.size))
            out.append('    R.fill(i_%s, %d, -1.5, 1.5);' % (q.name, q.size))


def _copies(prog, ind):
    """Working copies w_* of the written arrays, from their initial i_*."""
    out = []
    for q in prog.params:
        if q.kind == 'arr':
            out.append('%sdouble w_%s[%d];' % (ind, q.name, q.size))
            out.append('%sstd::memcpy(w_%s, i_%s, sizeof w_%s);' % (
                ind, q.name, q.name, q.name))
            if q.device:
                out += _upload('w_' + q.name, ind)
    return out


def _upload(host, ind):
    """A device copy d<host> of the host array <host> (pipelines: device
    buffers the caller passes)."""
    return ['%sdouble *d%s;' % (ind, host),
            '%scudaMalloc(&d%s, sizeof %s);' % (ind, host, host),
            '%scudaMemcpy(d%s, %s, sizeof %s, cudaMemcpyHostToDevice);' % (
                ind, host, host, host)]


def _download(prog, ind, prefixes=('w_',)):
    """Copies the device arrays back into their host arrays, frees them."""
    out = []
    for q in prog.params:
        if q.kind == 'arr' and q.device:
            for pre in prefixes:
                h = pre + q.name
                out.append('%scudaMemcpy(%s, d%s, sizeof %s, '
                           'cudaMemcpyDeviceToHost);' % (ind, h, h, h))
                out.append('%scudaFree(d%s);' % (ind, h))
    return out


def _args(prog):
    return ['a_%s' % q.name if q.kind in ('double', 'int', 'carr')
            else ('dw_%s' if q.device else 'w_%s') % q.name
            for q in prog.params]


def _launch(prog):
    return 'dim3(%d, %d), dim3(%d, %d)' % (prog.grid + prog.block)


def _primalCall(prog, name):
    args = ', '.join(_args(prog))
    if prog.family == 'kernel':
        shared = ', %d' % prog.sharedBytes if prog.sharedBytes else ''
        return 'MESHAD_LAUNCH(%s, %s%s)(%s)' % (name, _launch(prog), shared,
                                                args)
    return '%s(%s)' % (name, args)


def _derivedCall(prog, handle, extras):
    args = ', '.join(_args(prog) + extras)
    if prog.family == 'kernel':
        # The primal's dynamic shared bytes: execute_kernel adds the room
        # the derivative needs.
        shared = (', %d, nullptr' % prog.sharedBytes if prog.sharedBytes
                  else '')
        return '%s.execute_kernel(%s%s, %s)' % (handle, _launch(prog), shared,
                                                args)
    return '%s.execute(%s)' % (handle, args)


def _returns(prog):
    return prog.top.ret == 'double'


def _outsLambda(prog, fname):
    """`Outs()`: the primal's outputs from the current inputs."""
    out = ['    auto Outs = [&]() {', '      std::vector<double> O;']
    out += _copies(prog, '      ')
    call = _primalCall(prog, fname)
    if _returns(prog):
        out.append('      O.push_back(%s);' % call)
    else:
        out.append('      %s;' % call)
    out += _download(prog, '      ')
    for q in prog.params:
        if q.kind == 'arr':
            out.append('      meshad::fuzz::append(O, w_%s, %d);' % (
                q.name, q.size))
    out += ['      return O;', '    };']
    return out


def _perturb(prog, spec):
    """(setup lines, Eval lambda text, X0) for differentiating along spec."""
    name = spec.split('[')[0]
    q = next(p for p in prog.params if p.name == name)
    if q.kind == 'double':
        return [], ('[&](double T) { double S = a_%s; a_%s = T; auto O = '
                    'Outs(); a_%s = S; return O; }' % ((name,) * 3)), \
            'a_%s' % name
    base = 'a_%s' % name if q.kind == 'carr' else 'i_%s' % name
    if '[' in spec:
        k = spec.split('[')[1].rstrip(']')
        el = '%s[%s]' % (base, k)
        return [], ('[&](double T) { double S = %s; %s = T; auto O = Outs(); '
                    '%s = S; return O; }' % (el, el, el)), el
    setup = ['      double dir_%s[%d];' % (name, q.size),
             '      R.fill(dir_%s, %d, -1.0, 1.0);' % (name, q.size)]
    ev = ('[&](double T) { double S[%d]; std::memcpy(S, %s, sizeof S); '
          'for (int K = 0; K < %d; ++K) %s[K] = S[K] + T * dir_%s[K]; '
          'auto O = Outs(); std::memcpy(%s, S, sizeof S); return O; }'
          % (q.size, base, q.size, base, name, base))
    return setup, ev, '0.0'


def forwardUnit(u):
    prog, P = u.prog, u.prefix
    fname = P + prog.top.name.lstrip('@')
    lines = ['static void %srunF(meshad::fuzz::Unit &U) {' % P,
             '  meshad::fuzz::Rng R(%dull);' % (prog.seed * 2 + 1)]
    for n, spec in enumerate(prog.fwdSpecs):
        lines.append('  auto D%d = meshad::differentiate(%s, "%s");' % (
            n, fname, spec))
    lines.append('  for (int Pt = 0; Pt < %d; ++Pt) {' % NPOINTS[prog.family])
    _inputs(prog, lines)
    lines += _outsLambda(prog, fname)
    for n, spec in enumerate(prog.fwdSpecs):
        whole = '[' not in spec
        setup, ev, x0 = _perturb(prog, spec)
        lines.append('    {')
        lines += setup
        lines.append('      meshad::fuzz::Column C = meshad::fuzz::fdColumn('
                     '%s, %s);' % (ev, x0))
        lines += _copies(prog, '      ')
        extras = []
        for q in prog.params:
            sel = whole and q.name == spec
            if q.kind == 'arr' or (q.kind == 'carr' and sel):
                if sel:
                    lines.append('      double t_%s[%d];' % (q.name, q.size))
                    lines.append('      std::memcpy(t_%s, dir_%s, sizeof '
                                 't_%s);' % (q.name, q.name, q.name))
                else:
                    lines.append('      double t_%s[%d] = {};' % (q.name,
                                                                  q.size))
                extras.append('t_%s' % q.name)
        call = _derivedCall(prog, 'D%d' % n, extras)
        lines.append('      std::vector<double> Got;')
        if _returns(prog):
            lines.append('      Got.push_back(%s);' % call)
        else:
            lines.append('      %s;' % call)
        for q in prog.params:
            if q.kind == 'arr':
                lines.append('      meshad::fuzz::append(Got, t_%s, %d);' % (
                    q.name, q.size))
        lines.append('      U.checkAll("d/d%s", Got, C);' % spec)
        lines.append('    }')
    lines += ['  }', '}']
    return '\n'.join(lines)


def _revElems(prog, q):
    if prog.family == 'host' or q.size <= MAX_REV_ELEMS:
        return list(range(q.size))
    step = q.size / float(MAX_REV_ELEMS)
    return sorted(set(int(k * step) for k in range(MAX_REV_ELEMS)) |
                  {q.size - 1})


def reverseUnit(u):
    prog, P = u.prog, u.prefix
    fname = P + prog.top.name.lstrip('@')
    arrays = [q for q in prog.params if q.kind in ('carr', 'arr')]
    lines = ['static void %srunR(meshad::fuzz::Unit &U) {' % P,
             '  meshad::fuzz::Rng R(%dull);' % (prog.seed * 2 + 2),
             '  auto G = meshad::gradient(%s, ""%s);' % (
                 fname, ', meshad::WithValue' if _withValue(prog) else ''),
             '  for (int Pt = 0; Pt < %d; ++Pt) {' % NPOINTS[prog.family]]
    _inputs(prog, lines)
    for q in arrays:
        lines.append('    double wt_%s[%d];' % (q.name, q.size))
        lines.append('    R.fill(wt_%s, %d, 0.5, 1.5);' % (q.name, q.size))
    lines += _outsLambda(prog, fname)
    lines.append('    auto Loss = [&]() {')
    lines.append('      std::vector<double> O = Outs();')
    lines.append('      double L = %s;' % ('O[0]' if _returns(prog) else '0'))
    off = 1 if _returns(prog) else 0
    for q in arrays:
        if q.kind == 'arr':
            lines.append('      for (int K = 0; K < %d; ++K) L += wt_%s[K] * '
                         'O[%d + K];' % (q.size, q.name, off))
            off += q.size
        else:
            lines.append('      for (int K = 0; K < %d; ++K) L += wt_%s[K] * '
                         'a_%s[K];' % (q.size, q.name, q.name))
    lines.append('      return std::vector<double>{L};')
    lines.append('    };')
    lines += _copies(prog, '    ')
    extras = []
    for q in prog.params:
        if q.kind == 'double':
            # Adjoints accumulate: from the second point on, start at 0.5.
            lines.append('    double g_%s = Pt ? 0.5 : 0.0;' % q.name)
            extras.append('&g_%s' % q.name)
        elif q.kind in ('carr', 'arr'):
            lines.append('    double g_%s[%d];' % (q.name, q.size))
            lines.append('    std::memcpy(g_%s, wt_%s, sizeof g_%s);' % (
                q.name, q.name, q.name))
            if q.kind == 'arr' and q.device:
                lines += _upload('g_' + q.name, '    ')
                extras.append('dg_%s' % q.name)
            else:
                extras.append('g_%s' % q.name)
    if _withValue(prog):
        lines += _valueCheck(prog, _derivedCall(prog, 'G', extras))
    else:
        lines.append('    %s;' % _derivedCall(prog, 'G', extras))
        lines += _download(prog, '    ', ('w_', 'g_'))
    for q in prog.params:
        if q.kind == 'double':
            _, ev, x0 = _perturb(prog, q.name)
            lines.append('    U.check(Pt ? "dL/d%s (adjoint seeded 0.5)" : '
                         '"dL/d%s", g_%s - (Pt ? 0.5 : 0.0), '
                         'meshad::fuzz::fdColumn('
                         '%s, %s), 0);' % (q.name, q.name, q.name,
                                           ev.replace('Outs()', 'Loss()'), x0))
        elif q.kind in ('carr', 'arr'):
            base = 'a_%s' % q.name if q.kind == 'carr' else 'i_%s' % q.name
            for k in _revElems(prog, q):
                el = '%s[%d]' % (base, k)
                ev = ('[&](double T) { double S = %s; %s = T; auto O = Loss(); '
                      '%s = S; return O; }' % (el, el, el))
                lines.append('    U.check("dL/d%s[%d]", g_%s[%d], '
                             'meshad::fuzz::fdColumn(%s, %s), 0);' % (
                                 q.name, k, q.name, k, ev, el))
    lines += ['  }', '}']
    return '\n'.join(lines)


def _withValue(prog):
    return getattr(prog, 'withValue', False)


def _valueCheck(prog, call):
    """meshad::WithValue: the value the gradient returns and the written
    arrays it leaves must be the primal's (Outs(), exact up to round-off)."""
    lines = ['    std::vector<double> Got;', '    Got.push_back(%s);' % call]
    lines += _download(prog, '    ', ('w_', 'g_'))
    for q in prog.params:
        if q.kind == 'arr':
            lines.append('    meshad::fuzz::append(Got, w_%s, %d);' % (
                q.name, q.size))
    lines += ['    {',
              '      meshad::fuzz::Column V;',
              '      V.D = Outs();',
              '      V.Smooth.assign(V.D.size(), 1);',
              '      for (double D : V.D) V.Scale = std::max(V.Scale, '
              'std::fabs(D));',
              '      U.checkAll("value", Got, V);',
              '    }']
    return lines


def hvpEligible(prog):
    """Programs whose Hessian-vector product the 'H' unit checks."""
    if not any(q.kind in ('double', 'carr') for q in prog.params):
        return False
    if prog.family == 'kernel':
        return any(q.kind == 'arr' for q in prog.params)
    if prog.family == 'pipeline':
        return False
    return _returns(prog) and not any(q.kind == 'arr' for q in prog.params)


def hvpUnit(u):
    if u.prog.family == 'kernel':
        return kernelHvpUnit(u)
    prog, P = u.prog, u.prefix
    fname = P + prog.top.name.lstrip('@')
    inputs = [q for q in prog.params if q.kind in ('double', 'carr')]
    lines = ['static void %srunH(meshad::fuzz::Unit &U) {' % P,
             '  meshad::fuzz::Rng R(%dull);' % (prog.seed * 2 + 3),
             '  auto H = meshad::hvp(%s, "");' % fname,
             '  auto G = meshad::gradient(%s, "");' % fname,
             '  for (int Pt = 0; Pt < %d; ++Pt) {' % NPOINTS[prog.family]]
    _inputs(prog, lines)
    grads = []
    extras = _hvpInputs(prog, lines)
    lines.append('    H.execute(%s);' % ', '.join(_args(prog) + extras))
    # Grad(T): the gradient at the inputs moved by T along the directions.
    lines.append('    auto Grad = [&](double T) {')
    for q in inputs:
        if q.kind == 'double':
            lines.append('      double s_%s = a_%s; a_%s += T * v_%s;' % (
                (q.name,) * 4))
            lines.append('      double g_%s = 0;' % q.name)
            grads.append('&g_%s' % q.name)
        else:
            lines.append('      double s_%s[%d], g_%s[%d] = {};' % (
                q.name, q.size, q.name, q.size))
            lines.append('      std::memcpy(s_%s, a_%s, sizeof s_%s);' % (
                (q.name,) * 3))
            lines.append('      for (int K = 0; K < %d; ++K) a_%s[K] += '
                         'T * v_%s[K];' % (q.size, q.name, q.name))
            grads.append('g_%s' % q.name)
    lines.append('      G.execute(%s);' % ', '.join(_args(prog) + grads))
    lines.append('      std::vector<double> O;')
    for q in inputs:
        if q.kind == 'double':
            lines.append('      O.push_back(g_%s); a_%s = s_%s;' % (
                (q.name,) * 3))
        else:
            lines.append('      meshad::fuzz::append(O, g_%s, %d);' % (
                q.name, q.size))
            lines.append('      std::memcpy(a_%s, s_%s, sizeof s_%s);' % (
                (q.name,) * 3))
    lines += ['      return O;', '    };',
              '    meshad::fuzz::Column C = meshad::fuzz::fdColumn(Grad, 0.0);']
    off = 0
    for q in inputs:
        if q.kind == 'double':
            lines.append('    U.check("Hv_%s", h_%s - (Pt ? 0.25 : 0.0), C, '
                         '%d);' % (q.name, q.name, off))
            off += 1
        else:
            for k in range(q.size):
                lines.append('    U.check("Hv_%s[%d]", h_%s[%d] - (Pt ? 0.25 '
                             ': 0.0), C, %d);' % (q.name, k, q.name, k,
                                                  off + k))
            off += q.size
    lines += ['  }', '}']
    return '\n'.join(lines)


def _hvpInputs(prog, lines):
    """Directions v_* and results h_* of the inputs (results accumulate:
    0.25 from the second point on); the HVP's arguments for them."""
    dirs, results = [], []
    for q in prog.params:
        if q.kind == 'double':
            lines.append('    double v_%s = R.uniform(-1.0, 1.0);' % q.name)
            lines.append('    double h_%s = Pt ? 0.25 : 0.0;' % q.name)
            dirs.append('v_%s' % q.name)
            results.append('&h_%s' % q.name)
        elif q.kind == 'carr':
            lines.append('    double v_%s[%d], h_%s[%d];' % (
                q.name, q.size, q.name, q.size))
            lines.append('    R.fill(v_%s, %d, -1.0, 1.0);' % (q.name, q.size))
            lines.append('    for (double &X : h_%s) X = Pt ? 0.25 : 0.0;' %
                         q.name)
            dirs.append('v_%s' % q.name)
            results.append('h_%s' % q.name)
    return dirs + results


def _kernelGrad(prog):
    """`Grad(T)`: the kernel's gradient w.r.t. its inputs at the inputs
    moved by T along the directions, its outputs' adjoints seeded with the
    weights wt_*."""
    lines = ['    auto Grad = [&](double T) {']
    grads, back = [], []
    for q in prog.params:
        n = q.name
        if q.kind == 'double':
            lines.append('      double s_%s = a_%s; a_%s += T * v_%s;' % (
                (n,) * 4))
            lines.append('      double g_%s = 0;' % n)
            grads.append('&g_%s' % n)
            back.append('      O.push_back(g_%s); a_%s = s_%s;' % ((n,) * 3))
        elif q.kind == 'carr':
            lines.append('      double s_%s[%d], g_%s[%d] = {};' % (
                n, q.size, n, q.size))
            lines.append('      std::memcpy(s_%s, a_%s, sizeof s_%s);' % (
                (n,) * 3))
            lines.append('      for (int K = 0; K < %d; ++K) a_%s[K] += '
                         'T * v_%s[K];' % (q.size, n, n))
            grads.append('g_%s' % n)
            back.append('      meshad::fuzz::append(O, g_%s, %d);' % (
                n, q.size))
            back.append('      std::memcpy(a_%s, s_%s, sizeof s_%s);' % (
                (n,) * 3))
        elif q.kind == 'arr':
            lines.append('      double g_%s[%d];' % (n, q.size))
            lines.append('      std::memcpy(g_%s, wt_%s, sizeof g_%s);' % (
                (n,) * 3))
            grads.append('g_%s' % n)
    lines += _copies(prog, '      ')
    lines.append('      %s;' % _derivedCall(prog, 'G', grads))
    lines.append('      std::vector<double> O;')
    lines += back
    lines += ['      return O;', '    };']
    return lines


def kernelHvpUnit(u):
    """'H' of a kernel: the HVP of the weighted sum of its outputs."""
    prog, P = u.prog, u.prefix
    fname = P + prog.top.name.lstrip('@')
    lines = ['static void %srunH(meshad::fuzz::Unit &U) {' % P,
             '  meshad::fuzz::Rng R(%dull);' % (prog.seed * 2 + 3),
             '  auto H = meshad::hvp(%s, "");' % fname,
             '  auto G = meshad::gradient(%s, "");' % fname,
             '  for (int Pt = 0; Pt < %d; ++Pt) {' % NPOINTS[prog.family]]
    _inputs(prog, lines)
    seeds = []
    for q in prog.params:
        if q.kind == 'arr':
            lines.append('    double wt_%s[%d];' % (q.name, q.size))
            lines.append('    R.fill(wt_%s, %d, 0.5, 1.5);' % (q.name, q.size))
            seeds.append('wt_%s' % q.name)
    extras = _hvpInputs(prog, lines)
    lines += _copies(prog, '    ')
    lines.append('    %s;' % _derivedCall(prog, 'H', extras + seeds))
    lines += _kernelGrad(prog)
    lines.append('    meshad::fuzz::Column C = meshad::fuzz::fdColumn(Grad, '
                 '0.0);')
    off = 0
    for q in prog.params:
        if q.kind == 'double':
            lines.append('    U.check("Hv_%s", h_%s - (Pt ? 0.25 : 0.0), C, '
                         '%d);' % (q.name, q.name, off))
            off += 1
        elif q.kind == 'carr':
            for k in _revElems(prog, q):
                lines.append('    U.check("Hv_%s[%d]", h_%s[%d] - (Pt ? 0.25 '
                             ': 0.0), C, %d);' % (q.name, k, q.name, k,
                                                  off + k))
            off += q.size
    lines += ['  }', '}']
    return '\n'.join(lines)


def _hessianSelection(prog):
    """The inputs of a 'D' unit: (spec, [(param, element or None)]): every
    double parameter and a random range of at most 3 elements of each const
    array, at most 6 in all, in parameter order (a fixed choice per
    program)."""
    rng = random.Random(prog.seed * 7 + 5)
    items, sel = [], []
    for q in prog.params:
        if len(sel) >= 6:
            break
        if q.kind == 'double':
            items.append(q.name)
            sel.append((q, None))
        elif q.kind == 'carr':
            n = min(q.size, 3, 6 - len(sel))
            b = rng.randint(0, q.size - n)
            items.append('%s[%d:%d]' % (q.name, b, b + n))
            sel += [(q, b + k) for k in range(n)]
    return ', '.join(items), sel


def hessianEligible(prog):
    """Programs whose dense local Hessian the 'D' unit checks: host
    programs of the 'H' unit."""
    return prog.family == 'host' and hvpEligible(prog)


def hessianUnit(u):
    """'D': meshad::hessian(f, spec) (dense, k x k) against the central
    differences of meshad::gradient along each selected input, and H v
    against meshad::hvp along a direction on the selected inputs."""
    prog, P = u.prog, u.prefix
    fname = P + prog.top.name.lstrip('@')
    spec, sel = _hessianSelection(prog)
    k = len(sel)
    ref = ['a_%s' % q.name if e is None else 'a_%s[%d]' % (q.name, e)
           for q, e in sel]
    lines = ['static void %srunD(meshad::fuzz::Unit &U) {' % P,
             '  meshad::fuzz::Rng R(%dull);' % (prog.seed * 2 + 4),
             '  auto Hs = meshad::hessian(%s, "%s");' % (fname, spec),
             '  auto H = meshad::hvp(%s, "");' % fname,
             '  auto G = meshad::gradient(%s, "");' % fname,
             '  for (int Pt = 0; Pt < %d; ++Pt) {' % NPOINTS[prog.family]]
    _inputs(prog, lines)
    lines.append('    double Hm[%d];' % (k * k))
    lines.append('    Hs.execute(%s);' % ', '.join(_args(prog) + ['Hm']))
    lines.append('    double *Sel[%d] = {%s};' % (
        k, ', '.join('&' + r for r in ref)))
    grads = []
    for q in prog.params:
        if q.kind == 'double':
            lines.append('    double g_%s = 0;' % q.name)
            grads.append('&g_%s' % q.name)
        elif q.kind == 'carr':
            lines.append('    double g_%s[%d];' % (q.name, q.size))
            grads.append('g_%s' % q.name)
    gsel = ['g_%s' % q.name if e is None else 'g_%s[%d]' % (q.name, e)
            for q, e in sel]
    # Grad(J, T): the selected gradient entries with input J set to T.
    lines.append('    auto Grad = [&](int J, double T) {')
    lines.append('      double S = *Sel[J]; *Sel[J] = T;')
    for q in prog.params:
        if q.kind == 'double':
            lines.append('      g_%s = 0;' % q.name)
        elif q.kind == 'carr':
            lines.append('      std::fill(g_%s, g_%s + %d, 0.0);' % (
                q.name, q.name, q.size))
    lines.append('      G.execute(%s);' % ', '.join(_args(prog) + grads))
    lines.append('      *Sel[J] = S;')
    lines.append('      return std::vector<double>{%s};' % ', '.join(gsel))
    lines.append('    };')
    lines.append('    for (int J = 0; J < %d; ++J) {' % k)
    lines.append('      meshad::fuzz::Column C = meshad::fuzz::fdColumn('
                 '[&](double T) { return Grad(J, T); }, *Sel[J]);')
    lines.append('      for (int I = 0; I < %d; ++I)' % k)
    lines.append('        U.check("H[" + std::to_string(I) + "][" + '
                 'std::to_string(J) + "]", Hm[I * %d + J], C, I);' % k)
    lines.append('    }')
    # H v along a direction on the selected inputs against the HVP.
    extras = _hvpInputs(prog, lines)
    for q in prog.params:
        chosen = [e for p, e in sel if p is q]
        if q.kind == 'double' and not chosen:
            lines.append('    v_%s = 0;' % q.name)
        elif q.kind == 'carr':
            lines.append('    for (int K = 0; K < %d; ++K) if (!(%s)) '
                         'v_%s[K] = 0;' % (q.size, ' || '.join(
                             'K == %d' % e for e in chosen) or 'false',
                             q.name))
    lines.append('    H.execute(%s);' % ', '.join(_args(prog) + extras))
    vsel = ['v_%s' % q.name if e is None else 'v_%s[%d]' % (q.name, e)
            for q, e in sel]
    hsel = ['h_%s' % q.name if e is None else 'h_%s[%d]' % (q.name, e)
            for q, e in sel]
    lines.append('    double Vs[%d] = {%s};' % (k, ', '.join(vsel)))
    lines.append('    meshad::fuzz::Column Hv;')
    lines.append('    Hv.D = {%s};' % ', '.join(
        '%s - (Pt ? 0.25 : 0.0)' % h for h in hsel))
    lines.append('    Hv.Smooth.assign(%d, 1);' % k)
    lines.append('    for (double D : Hv.D) Hv.Scale = std::max(Hv.Scale, '
                 'std::fabs(D));')
    lines.append('    for (int I = 0; I < %d; ++I) {' % k)
    lines.append('      double S = 0;')
    lines.append('      for (int J = 0; J < %d; ++J) S += Hm[I * %d + J] * '
                 'Vs[J];' % (k, k))
    lines.append('      U.check("(H v)[" + std::to_string(I) + "] vs hvp", '
                 'S, Hv, I);')
    lines.append('    }')
    lines += ['  }', '}']
    return '\n'.join(lines)


def translationUnit(units):
    """The source of a TU holding `units`, and [(first line, last line,
    program index)] of each program's and each unit's code."""
    chunks = [HEADER]
    ranges = []
    line = HEADER.count('\n') + 1
    done = set()
    for u in units:
        texts = []
        if u.index not in done:
            done.add(u.index)
            texts.append('// program %d (seed %d)\n%s' % (
                u.index, u.prog.seed, u.prog.source(u.prefix)))
        make = {'F': forwardUnit, 'R': reverseUnit, 'H': hvpUnit,
                'D': hessianUnit}[u.mode]
        texts.append(make(u) + '\n')
        for t in texts:
            n = t.count('\n')
            ranges.append((line, line + n, u.index))
            chunks.append(t)
            line += n + 1
            chunks.append('\n')
    entries = ', '.join('{"%s", %srun%s}' % (u.name, u.prefix, u.mode)
                        for u in units)
    chunks.append('int main(int argc, char **argv) {\n'
                  '  static const meshad::fuzz::Entry Units[] = {%s};\n'
                  '  return meshad::fuzz::runUnits(Units, %d, argc, argv);\n'
                  '}\n' % (entries, len(units)))
    return ''.join(chunks), ranges
