"""Random well-defined programs for the meshad fuzzer: expressions,
statements, helper functions and host functions under test.

Well-defined by construction: every value has a magnitude bound that is
tracked and capped (by tanh/sin/atan wrappers), divisions are by
denominators bounded away from zero, logarithms and roots take arguments
bounded away from zero, array indices are constants, loop counters known to
be in range or reduced modulo the size, loops have constant or small trip
counts and increment their counters before anything can `continue`, every
local array is initialised where it is declared. Kinks and jumps (fabs,
fmin, branches on values) are allowed: the checks skip points where finite
differences see one.
"""

import random

import gen_cxx
from model import Func, If, Loop, Program, Simple

CAP = 50.0       # magnitude cap of an expression
LOOP_CAP = 5.0   # cap of a value stored in a loop into an outer variable
HARG = 4.0       # cap of a helper's arguments (helpers assume it)
INPUT = 1.5      # inputs are uniform in [-INPUT, INPUT]

CONSTS = ['0.5', '1.5', '2.0', '0.25', '-0.75', '1.25', '3.0', '0.1', '-1.5',
          '0.8']

# (template, bound from the bounds of {a} {b} {s}, needs CUDA). {a}, {b}:
# expressions; {s}: a small expression that the template repeats.
SMOOTH = [
    ('sin({a})', lambda a, b, s: 1.0, False),
    ('cos({a})', lambda a, b, s: 1.0, False),
    ('tanh({a})', lambda a, b, s: 1.0, False),
    ('atan({a})', lambda a, b, s: 1.6, False),
    ('erf({a})', lambda a, b, s: 1.0, False),
    ('erfc({a})', lambda a, b, s: 2.0, False),
    ('exp(tanh({a}))', lambda a, b, s: 2.8, False),
    ('exp(0.25 * sin({a}))', lambda a, b, s: 1.3, False),
    ('exp2(0.5 * sin({a}))', lambda a, b, s: 1.5, False),
    ('expm1(0.5 * tanh({a}))', lambda a, b, s: 0.7, False),
    ('sqrt({s} * {s} + 1.0)', lambda a, b, s: s + 1, False),
    ('log(1.0 + {s} * {s})', lambda a, b, s: 1 + 2 * s, False),
    ('log1p({s} * {s})', lambda a, b, s: 1 + 2 * s, False),
    ('log2(2.0 + sin({a}))', lambda a, b, s: 1.6, False),
    ('log10(1.5 + cos({a}))', lambda a, b, s: 0.4, False),
    ('pow({s} * {s} + 0.5, 1.5)', lambda a, b, s: (s * s + 0.5) ** 1.5,
     False),
    ('pow({a}, 2)', lambda a, b, s: a * a, False),
    ('pow(1.5 + sin({a}), {b})', lambda a, b, s: 2.5 ** b, False),
    ('cbrt({s} * {s} + 1.0)', lambda a, b, s: s + 1, False),
    ('hypot({a}, 1.5)', lambda a, b, s: a + 1.5, False),
    ('atan2({a}, 2.0 + cos({s}))', lambda a, b, s: 1.6, False),
    ('asinh({a})', lambda a, b, s: 1 + a, False),
    ('sinh(tanh({a}))', lambda a, b, s: 1.2, False),
    ('cosh(sin({a}))', lambda a, b, s: 1.6, False),
    ('tan(0.5 * tanh({a}))', lambda a, b, s: 0.6, False),
    ('asin(0.8 * tanh({a}))', lambda a, b, s: 1.0, False),
    ('acos(0.8 * sin({a}))', lambda a, b, s: 2.5, False),
    ('atanh(0.7 * tanh({a}))', lambda a, b, s: 0.9, False),
    ('acosh(1.5 + {s} * {s})', lambda a, b, s: 1 + s, False),
    ('fma({a}, {b}, 0.5)', lambda a, b, s: a * b + 0.5, False),
    ('rsqrt(1.0 + {s} * {s})', lambda a, b, s: 1.0, True),
    ('normcdf({a})', lambda a, b, s: 1.0, True),
]
# Functions whose rules came with issue 13 (construct 'special-math').
SPECIAL = [
    ('lgamma(2.0 + sin({a}))', lambda a, b, s: 0.5, False),
    ('tgamma(1.5 + 0.5 * sin({a}))', lambda a, b, s: 1.0, False),
    ('__builtin_pow({s} * {s} + 0.5, 1.5)',
     lambda a, b, s: (s * s + 0.5) ** 1.5, False),
    ('ldexp({a}, 2)', lambda a, b, s: 4 * a, False),
]
# Their functions with kinks.
SPECIAL_KINK = [
    ('fdim({a}, {b})', lambda a, b: a + b),
    ('remainder({a}, 1.25)', lambda a, b: 0.625),
]
# Functions with kinks or jumps: the checks skip points next to them.
KINK = [
    ('fabs({a})', lambda a, b: a),
    ('fmin({a}, {b})', lambda a, b: max(a, b)),
    ('fmax({a}, {b})', lambda a, b: max(a, b)),
    ('std::max({a}, {b})', lambda a, b: max(a, b)),
    ('std::min({a}, {b})', lambda a, b: max(a, b)),
    ('std::max({a}, (double)2)', lambda a, b: max(a, 2)),
    ('std::min({a}, (double)1)', lambda a, b: max(a, 1)),
    ('fmax({a}, 0.5)', lambda a, b: max(a, 0.5)),
    ('copysign({a}, {b})', lambda a, b: a),
    ('fmod({a}, 1.75)', lambda a, b: 1.75),
    ('floor({a})', lambda a, b: a + 1),
]
# Denominators and their lower bounds.
DENOMS = [('(2.0 + sin({s}))', 1.0), ('(1.0 + {s} * {s})', 1.0),
          ('(1.5 + cos({s}))', 0.5), ('sqrt(1.0 + {s} * {s})', 1.0),
          ('(2.5 - tanh({s}))', 1.5)]
WRAPS = ['tanh', 'sin', 'atan', 'erf']
LOCAL_NAMES = ['t', 'u', 'w', 'acc', 'e', 'r', 'c', 'd', 'g', 'h', 'm', 'z',
               'f', 'o', 'l', 'b']
# Names that meshad itself uses for what it generates.
MESHAD_NAMES = ['_t0', '_t1', '_r0', '_r1', '_cond0', '_d_t', '_d_y', '_d_x',
                '_d_p', 'd_x', '_t2']
LOOP_VARS = ['i', 'j', 'k2', 'm2', 'n2']

# Constructs that can be switched off (--disable), e.g. those of known bugs
# while they are being fixed, so that a run can look for new ones.
TOGGLES = {
    'short-init': 'local arrays with a brace initialiser shorter than the array',
    'for-inc': 'active updates in a for increment',
    'modify-local': 'the result of a call that modifies an array stored '
                    'into a local',
    'array-callee': 'helpers that write or modify an array argument',
    'ptr-inc': 'pointer arithmetic (p += 1, ++p, p++, p = p + 1)',
    'ptr-const': 'const pointer locals (const double *q = p + 1)',
    'ptr-write': 'pointer locals written through (double *q = v + 1)',
    'meshad-names': "user names like meshad's own (_d_x, _t0, ...)",
    'param-y': "helper parameters named 'y'",
    'max-cast': 'std::max(v, (double)2)',
    'double3': 'double3 locals and helpers',
    'return-in-loop': 'return inside a loop',
    'template': 'helper function templates',
    'namespace': 'helpers in namespaces',
    'kink': 'fabs, fmin, fmax, std::max, copysign, fmod, floor',
    'while': 'while and do-while loops',
    'param-overwrite': 'assignments to scalar parameters',
    'output-reuse': 'kernels that read an output, update it in place, or '
                    'store it more than once or in a loop (meshad::hvp '
                    'cannot keep their seeds; off with --modes H)',
    'side-effects': 'side effects inside expressions: a[k++], assignments '
                    'in conditions, comma, chained =, while (n--)',
    'switch': 'switch with fallthrough and default',
    'cond-init': 'if with an initializer or a condition variable',
    'range-for': 'range-based for over local arrays (by value and by '
                 'reference)',
    'assert-printf': 'assert and printf',
    'special-math': 'lgamma, tgamma, __builtin_pow, ldexp, fdim, remainder',
    'references': 'reference locals (double &r = a[2]) and helpers that '
                  'update a double & parameter',
    'struct-methods': 'a plain struct with member functions, operators '
                      'written as members, passed to and returned from a '
                      'helper',
    'heap-scalars': 'host code: new double(e) and delete, new double[n] '
                    'with a local n = 2 and delete[]',
    'virtual-calls': 'host code: a virtual member function called on a '
                     'local object',
    'dynamic-shared': 'kernels whose first __shared__ tile is dynamic '
                      'shared memory (MESHAD_DYNAMIC_SHARED; off with '
                      '--modes H)',
}
DISABLED = set()


def allowed(feature):
    return feature not in DISABLED


class Var:
    """A name in scope. kind: 'd' (double), 'int', 'arr' (array or
    pointer), 'vec3' (double3)."""

    def __init__(self, name, kind, bound=INPUT, size=0, writable=True,
                 lo=0, hi=0, level=0):
        self.name = name
        self.kind = kind
        self.bound = bound
        self.size = size
        self.writable = writable
        self.lo, self.hi = lo, hi
        self.level = level      # loop depth where it was declared
        self.block = None       # pointer locals: the declaring block
        self.fixedIndex = None  # kernel outputs: the only index allowed
        self.readable = True    # False: a write-only output


class Scope:
    def __init__(self, parent=None):
        self.vars = list(parent.vars) if parent else []
        self.names = parent.names if parent else set()

    def child(self):
        return Scope(self)

    def add(self, v):
        self.vars.append(v)
        self.names.add(v.name)
        return v

    def of(self, kind):
        return [v for v in self.vars if v.kind == kind]

    def fresh(self, pool):
        for n in pool:
            if n not in self.names:
                return n
        i = 0
        while 'v%d' % i in self.names:
            i += 1
        return 'v%d' % i


class Ctx:
    def __init__(self, ret, allowReturn=True):
        self.ret = ret
        self.loopDepth = 0
        self.trips = 1
        self.depth = 0
        self.allowReturn = allowReturn
        self.block = object()
        self.inLoopBody = False

    def nested(self, loopTrip=None):
        c = Ctx(self.ret, self.allowReturn)
        c.loopDepth, c.trips, c.depth = self.loopDepth, self.trips, self.depth
        c.depth += 1
        if loopTrip is not None:
            c.loopDepth += 1
            c.trips *= loopTrip
            c.inLoopBody = True
        else:
            c.inLoopBody = self.inLoopBody
        return c


class Helper:
    def __init__(self, kind, func, nargs, m=0):
        self.kind = kind    # 'scalar', 'arr', 'ptrout', 'modify', 'vec3'
        self.func = func
        self.nargs = nargs  # double arguments
        self.m = m          # elements of the array argument it touches


class Gen:
    """Generates statements and expressions into a Program."""

    def __init__(self, seed, family='host', cuda=None):
        self.r = random.Random(seed)
        self.prog = Program(seed, family)
        if cuda is not None:
            self.prog.cuda = cuda
        self.helpers = []
        self.feat = self.prog.features
        self.maxDepth = 3
        self.deviceOnly = False  # helpers must be __device__

    def chance(self, p):
        return self.r.random() < p

    def const(self):
        return self.r.choice(CONSTS)

    # --- expressions ------------------------------------------------------

    def wrap(self, e, cap):
        text, b = e
        if b <= cap:
            return e
        scale = min(cap, 2.0)
        return ('%s * %s(%s)' % (fmt(scale), self.r.choice(WRAPS), text),
                scale * 1.6)

    def index(self, sc, a):
        """An in-bounds index of array `a`."""
        if a.fixedIndex:
            return a.fixedIndex
        size = a.size
        ints = [v for v in sc.of('int') if v.lo >= 0]
        if ints and self.chance(0.6):
            i = self.r.choice(ints)
            c = self.r.randint(0, 2)
            if i.hi < size and self.chance(0.5):
                if self.chance(0.3):
                    return '%d - %s' % (size - 1, i.name)
                return i.name
            return '(%s + %d) %% %d' % (i.name, c, size) if c else \
                '%s %% %d' % (i.name, size)
        return str(self.r.randrange(size))

    def atom(self, sc):
        ds = sc.of('d')
        arrs = [a for a in sc.of('arr') if a.size > 0 and a.readable]
        vecs = sc.of('vec3')
        ints = sc.of('int')
        x = self.r.random()
        if ds and x < 0.45:
            v = self.r.choice(ds)
            return v.name, v.bound
        if arrs and x < 0.8:
            a = self.r.choice(arrs)
            return '%s[%s]' % (a.name, self.index(sc, a)), a.bound
        if vecs and x < 0.85:
            v = self.r.choice(vecs)
            return '%s.%s' % (v.name, self.r.choice('xyz')), v.bound
        if ints and x < 0.9:
            i = self.r.choice(ints)
            c = self.r.choice(['0.25', '0.5', '0.1'])
            cast = self.r.choice(['%s', '%s', '(double)%s',
                                  'static_cast<double>(%s)'])
            return '%s * %s' % (c, cast % i.name), float(c) * max(
                abs(i.lo), abs(i.hi), 1)
        c = self.const()
        return c, abs(float(c))

    def small(self, sc):
        return self.expr(sc, 1) if self.chance(0.3) else self.atom(sc)

    def expr(self, sc, depth=2):
        if depth <= 0 or self.chance(0.22):
            return self.atom(sc)
        kinds = ['add'] * 3 + ['sub'] * 2 + ['mul'] * 3 + ['div', 'neg'] + \
            ['smooth'] * 4 + ['ternary'] + (['kink'] if allowed('kink') else [])
        if self.helpers:
            kinds += ['call'] * 2
        k = self.r.choice(kinds)
        if k in ('add', 'sub', 'mul'):
            (a, ba), (b, bb) = self.expr(sc, depth - 1), self.expr(sc,
                                                                  depth - 1)
            op = {'add': '+', 'sub': '-', 'mul': '*'}[k]
            bound = ba * bb if k == 'mul' else ba + bb
            return self.wrap(('(%s %s %s)' % (a, op, b), bound), CAP)
        if k == 'div':
            a, ba = self.expr(sc, depth - 1)
            den, lo = self.r.choice(DENOMS)
            s, _ = self.small(sc)
            return self.wrap(('(%s / %s)' % (a, den.format(s=s)), ba / lo),
                             CAP)
        if k == 'neg':
            a, ba = self.expr(sc, depth - 1)
            return ('(-(%s))' if a.startswith('-') else '(-%s)') % a, ba
        if k == 'smooth':
            choices = [f for f in SMOOTH if self.prog.cuda or not f[2]]
            if allowed('special-math') and self.chance(0.15):
                choices = SPECIAL
                self.feat.add('special-math')
            tmpl, bf, _ = self.r.choice(choices)
            a, ba = self.wrap(self.expr(sc, depth - 1), 8)
            b, bb = self.wrap(self.expr(sc, depth - 1), 2)
            s, bs = self.wrap(self.small(sc), 8)
            return self.wrap((tmpl.format(a=a, b=b, s=s), bf(ba, bb, bs)),
                             CAP)
        if k == 'kink':
            kinks = KINK + (SPECIAL_KINK if allowed('special-math') else [])
            tmpl, bf = self.r.choice([k for k in kinks if allowed('max-cast')
                                      or '(double)' not in k[0]])
            if '(double)' in tmpl:
                self.feat.add('max-cast')
            self.feat.add('kink')
            (a, ba), (b, bb) = self.expr(sc, depth - 1), self.expr(sc,
                                                                  depth - 1)
            return tmpl.format(a=a, b=b), bf(ba, bb)
        if k == 'ternary':
            self.feat.add('ternary')
            (a, ba), (b, bb) = self.expr(sc, depth - 1), self.expr(sc,
                                                                  depth - 1)
            return '(%s ? %s : %s)' % (self.cond(sc), a, b), max(ba, bb)
        return self.callExpr(sc, depth)

    def callExpr(self, sc, depth):
        hs = [h for h in self.helpers if h.kind in ('scalar', 'arr', 'vec3')]
        arrs = [a for a in sc.of('arr') if a.size > 0 and not a.fixedIndex
                and a.readable]
        vecs = sc.of('vec3')
        hs = [h for h in hs if (h.kind != 'arr' or
                                any(a.size >= h.m for a in arrs))]
        if not hs:
            return self.atom(sc)
        h = self.r.choice(hs)
        args = []
        if h.kind == 'arr':
            args.append(self.r.choice([a for a in arrs if a.size >= h.m]).name)
        if h.kind == 'vec3':
            if vecs and self.chance(0.9):
                args.append(self.r.choice(vecs).name)
            else:
                args.append('make_double3(%s, %s, %s)' % tuple(
                    self.wrap(self.expr(sc, 0), HARG)[0] for _ in range(3)))
        for _ in range(h.nargs):
            args.append(self.wrap(self.expr(sc, depth - 1), HARG)[0])
        self.feat.add('call')
        return '%s(%s)' % (h.func.callName(), ', '.join(args)), CAP

    def cond(self, sc):
        x = self.r.random()
        ints = sc.of('int')
        if ints and x < 0.3:
            i = self.r.choice(ints)
            return self.r.choice(['%s %% 2 == 0' % i.name,
                                  '%s == %d' % (i.name, self.r.randint(
                                      i.lo, max(i.lo, i.hi))),
                                  '%s > %d' % (i.name, self.r.randint(
                                      i.lo, max(i.lo, i.hi)))])
        if x < 0.85:
            a, _ = self.expr(sc, 1)
            if self.chance(0.5):
                return '%s > %s' % (a, self.r.choice(
                    ['0.0', '0.3', '-0.4', '1.0', '0.7']))
            b, _ = self.expr(sc, 1)
            return '%s < %s' % (a, b)
        op = self.r.choice(['&&', '||'])
        return '(%s) %s (%s)' % (self.cond(sc), op, self.cond(sc))

    # --- statements -------------------------------------------------------

    def block(self, sc, ctx, n):
        out = []
        for _ in range(n):
            out += self.stmt(sc, ctx)
        return out

    def localName(self, sc):
        if self.chance(0.05) and allowed('meshad-names'):
            names = [n for n in MESHAD_NAMES if n not in sc.names]
            if names:
                self.feat.add('meshad-like-name')
                return self.r.choice(names)
        return sc.fresh(self.r.sample(LOCAL_NAMES, len(LOCAL_NAMES)))

    def stmt(self, sc, ctx):
        kinds = ['decl'] * 4 + ['assign'] * 5 + ['arrwrite'] * 3
        if ctx.depth < self.maxDepth:
            kinds += ['if'] * 2 + ['loop'] * 2
        kinds += ['call', 'localarr']
        if allowed('ptr-const') or allowed('ptr-write'):
            kinds.append('ptr')
        if ctx.inLoopBody:
            kinds += ['jump']
        if ctx.allowReturn and ctx.depth > 0 and (not ctx.inLoopBody or (
                self.chance(0.1) and allowed('return-in-loop'))):
            kinds += ['return']
        if self.prog.cuda and allowed('double3'):
            kinds += ['vec3'] * (1 + any(h.kind == 'vec3' for h in self.helpers))
        if any(allowed(k) for k in gen_cxx.KINDS):
            kinds += ['cxx'] * 2
        return getattr(self, 's_' + self.r.choice(kinds))(sc, ctx)

    def s_cxx(self, sc, ctx):
        return gen_cxx.stmt(self, sc, ctx)

    def rhs(self, sc, ctx, var):
        """A value to store into `var` (a Var) and its bound."""
        e = self.expr(sc, self.r.randint(1, 3))
        if var.level < ctx.loopDepth:
            return self.wrap(e, LOOP_CAP)
        return self.wrap(e, CAP)

    def update(self, sc, ctx, target, var):
        """`target op= value;` for a double lvalue `target` of `var`."""
        outer = var.level < ctx.loopDepth
        op = self.r.choice(['=', '=', '+=', '-=', '*=', '/=', 'self'])
        if not var.readable:
            op = '='
        if op == '=':
            e, b = self.rhs(sc, ctx, var)
            var.bound = max(var.bound, b) if not outer else max(var.bound, b)
            return Simple('%s = %s;' % (target, e))
        if op in ('+=', '-='):
            e, b = self.wrap(self.expr(sc, 2), 1.0 if outer else CAP)
            var.bound += b * (ctx.trips if outer else 1)
            return Simple('%s %s %s;' % (target, op, e))
        if op == '*=':
            s, _ = self.small(sc)
            return Simple('%s *= (0.6 + 0.3 * sin(%s));' % (target, s))
        if op == '/=':
            s, _ = self.small(sc)
            return Simple('%s /= (2.0 + cos(%s));' % (target, s))
        e, b = self.wrap(self.expr(sc, 2), 1.0)
        var.bound += b * (ctx.trips if outer else 1)
        return Simple('%s = 0.5 * %s + %s;' % (target, target, e))

    def assignable(self, sc):
        return [v for v in sc.of('d') if v.writable and (
            allowed('param-overwrite') or not getattr(v, 'isParam', False))]

    def s_decl(self, sc, ctx):
        name = self.localName(sc)
        e, b = self.wrap(self.expr(sc, self.r.randint(1, 3)), CAP)
        v = sc.add(Var(name, 'd', b, level=ctx.loopDepth))
        ty = self.r.choice(['double'] * 8 + ['const double', 'auto'])
        if ty == 'const double':
            v.writable = False
            self.feat.add('const-local')
        elif ty == 'auto':
            e = '%s + 0.0' % e  # a double whatever the expression
            self.feat.add('auto-local')
        return [Simple('%s %s = %s;' % (ty, name, e))]

    def s_assign(self, sc, ctx):
        ds = self.assignable(sc)
        if not ds:
            return self.s_decl(sc, ctx)
        v = self.r.choice(ds)
        if getattr(v, 'isParam', False):
            self.feat.add('param-overwrite')
        return [self.update(sc, ctx, v.name, v)]

    def s_arrwrite(self, sc, ctx):
        arrs = [a for a in sc.of('arr') if a.writable and a.size > 0]
        if not arrs:
            return self.s_assign(sc, ctx)
        a = self.r.choice(arrs)
        return [self.update(sc, ctx, '%s[%s]' % (a.name, self.index(sc, a)),
                            a)]

    def s_if(self, sc, ctx):
        c = self.cond(sc)
        then = self.block(sc.child(), ctx.nested(), self.r.randint(1, 3))
        els = None
        if self.chance(0.5):
            els = self.block(sc.child(), ctx.nested(), self.r.randint(1, 3))
        return [If(c, then, els)]

    def s_jump(self, sc, ctx):
        j = self.r.choice(['break', 'continue'])
        self.feat.add('loop-' + j)
        return [If(self.cond(sc), [Simple(j + ';')])]

    def s_return(self, sc, ctx):
        if ctx.inLoopBody:
            self.feat.add('return-in-loop')
        self.feat.add('early-return')
        if ctx.ret == 'void':
            return [If(self.cond(sc), [Simple('return;')])]
        e, _ = self.wrap(self.expr(sc, 2), CAP)
        return [If(self.cond(sc), [Simple('return %s;' % e)])]

    def loopTrip(self, sc):
        ints = [v for v in sc.of('int') if getattr(v, 'isParam', False)]
        if ints and self.chance(0.35):
            n = self.r.choice(ints)
            return n.name, n.hi
        t = self.r.randint(1, 4)
        return str(t), t

    def s_loop(self, sc, ctx):
        tripText, trip = self.loopTrip(sc)
        inner = sc.child()
        name = sc.fresh(LOOP_VARS)
        kind = self.r.choice(['for'] * 5 +
                             (['while', 'do'] if allowed('while') else []) +
                             (['for-inc'] if allowed('for-inc') else []))
        nctx = ctx.nested(trip)
        pre = []
        if kind == 'for':
            inner.add(Var(name, 'int', lo=0, hi=trip - 1, level=nctx.loopDepth))
            body = self.block(inner, nctx, self.r.randint(1, 4))
            loop = Loop('for (int %s = 0; %s < %s; ++%s)' % (name, name,
                                                            tripText, name),
                        body)
        elif kind == 'for-inc':
            # An active update in the increment (the counter moves in the
            # body, first, so that `continue` cannot skip it).
            ds = self.assignable(sc)
            if not ds:
                return self.s_decl(sc, ctx)
            self.feat.add('for-active-increment')
            v = self.r.choice(ds)
            s, _ = self.small(sc)
            inner.add(Var(name, 'int', lo=1, hi=trip, level=nctx.loopDepth))
            body = [Simple('++%s;' % name, deletable=False)]
            body += self.block(inner, nctx, self.r.randint(1, 3))
            loop = Loop('for (int %s = 0; %s < %s; %s *= (0.6 + 0.3 * sin(%s)))'
                        % (name, name, tripText, v.name, s), body)
        else:
            self.feat.add(kind + '-loop')
            sc.names.add(name)
            pre = [Simple('int %s = 0;' % name, deletable=False)]
            inner.add(Var(name, 'int', lo=1, hi=trip, level=nctx.loopDepth))
            body = [Simple('++%s;' % name, deletable=False)]
            body += self.block(inner, nctx, self.r.randint(1, 4))
            cond = '%s < %s' % (name, tripText)
            if self.chance(0.3):
                a, _ = self.expr(sc, 1)
                cond += ' && %s < %s' % (a, self.r.choice(['1.0', '2.0', '0.5']))
                self.feat.add('active-loop-condition')
            if kind == 'while':
                loop = Loop('while (%s)' % cond, body)
            else:
                loop = Loop('do', body, 'while (%s);' % cond)
        self.feat.add('loop')
        return pre + [loop]

    def s_call(self, sc, ctx):
        hs = [h for h in self.helpers if h.kind in ('ptrout', 'modify')]
        arrs = [a for a in sc.of('arr') if a.writable and a.size > 0 and
                a.readable and not a.fixedIndex]
        hs = [h for h in hs if any(a.size >= h.m for a in arrs)]
        if not hs:
            return self.s_assign(sc, ctx)
        h = self.r.choice(hs)
        a = self.r.choice([a for a in arrs if a.size >= h.m])
        a.bound = max(a.bound, CAP)
        args = [a.name] + [self.wrap(self.expr(sc, 1), HARG)[0]
                           for _ in range(h.nargs)]
        if h.kind == 'ptrout':
            args = args[1:] + args[:1]
        call = '%s(%s)' % (h.func.callName(), ', '.join(args))
        self.feat.add('call-' + h.kind)
        if h.kind == 'modify':
            x = self.r.random()
            if x < 0.35 and allowed('modify-local'):
                name = self.localName(sc)
                sc.add(Var(name, 'd', CAP, level=ctx.loopDepth))
                self.feat.add('modify-result-local')
                return [Simple('double %s = %s;' % (name, call))]
            ds = self.assignable(sc)
            if x < 0.7 and ds and allowed('modify-local'):
                v = self.r.choice(ds)
                op = '+=' if v.level < ctx.loopDepth else '='
                if op == '+=':
                    v.bound += CAP * ctx.trips
                else:
                    v.bound = max(v.bound, CAP)
                return [Simple('%s %s 0.02 * %s;' % (v.name, op, call))]
        return [Simple(call + ';')]

    def s_localarr(self, sc, ctx):
        name = sc.fresh(['w', 'buf', 'tmp', 'arr', 'loc', 'cache'])
        sc.names.add(name)
        size = self.r.randint(2, 5)
        x = self.r.random()
        out = []
        b = 0.0
        if x < 0.35 or (x < 0.55 and not allowed('short-init')):
            n = self.r.randint(1, size) if allowed('short-init') else size
            if n < size:
                self.feat.add('local-array-short-init')
            vals = [self.wrap(self.expr(sc, 1), CAP) for _ in range(n)]
            b = max(v[1] for v in vals)
            out.append(Simple('double %s[%d] = {%s};' % (
                name, size, ', '.join(v[0] for v in vals))))
        elif x < 0.55:
            self.feat.add('local-array-empty-init')
            out.append(Simple('double %s[%d] = {};' % (name, size)))
        else:
            self.feat.add('local-array-fill')
            j = sc.fresh(LOOP_VARS)
            inner = sc.child()
            inner.add(Var(j, 'int', lo=0, hi=size - 1, level=ctx.loopDepth + 1))
            e, b = self.wrap(self.expr(inner, 2), LOOP_CAP)
            out.append(Simple('double %s[%d];' % (name, size), deletable=False))
            out.append(Loop('for (int %s = 0; %s < %d; ++%s)' % (j, j, size, j),
                            [Simple('%s[%s] = %s;' % (name, j, e),
                                    deletable=False)]))
            out[-1].deletable = False
        sc.add(Var(name, 'arr', b, size=size, level=ctx.loopDepth))
        sc.vars[-1].isLocalArray = True
        return out

    def s_ptr(self, sc, ctx):
        ptrs = [a for a in sc.of('arr') if a.block is ctx.block and a.size >= 2]
        if ptrs and self.chance(0.5) and allowed('ptr-inc'):
            return self.s_ptrInc(self.r.choice(ptrs))
        arrs = [a for a in sc.of('arr') if a.size >= 2 and not a.fixedIndex
                and a.readable]
        if not arrs:
            return self.s_localarr(sc, ctx)
        a = self.r.choice(arrs)
        off = self.r.randint(0, a.size - 1)
        name = sc.fresh(['ptr', 'cur', 'q2', 'src', 'dst'])
        const = 'const ' if not a.writable or self.chance(0.5) else ''
        if not allowed('ptr-write') and a.writable:
            const = 'const '
        if not allowed('ptr-const') and const:
            if not a.writable or not allowed('ptr-write'):
                return self.s_localarr(sc, ctx)
            const = ''
        init = a.name if off == 0 else '%s + %d' % (a.name, off)
        self.feat.add('pointer-alias' if off == 0 else 'pointer-offset')
        self.feat.add('pointer-const' if const else 'pointer-write')
        v = sc.add(Var(name, 'arr', a.bound, size=a.size - off,
                       writable=not const, level=ctx.loopDepth))
        v.block = ctx.block
        if not const:
            a.bound = max(a.bound, CAP)
            v.bound = max(v.bound, CAP)
        out = [Simple('%sdouble *%s = %s;' % (const, name, init))]
        if v.size >= 2 and allowed('ptr-inc') and self.chance(0.4):
            # A few statements that use it, then move it.
            out += self.block(sc, ctx, self.r.randint(0, 2))
            out += self.s_ptrInc(v)
        return out

    def s_ptrInc(self, p):
        form = self.r.choice(['%s += 1;', '++%s;', '%s++;', '%s = %s + 1;'])
        self.feat.add('pointer-increment')
        p.size -= 1
        return [Simple(form.replace('%s', p.name))]

    def s_vec3(self, sc, ctx):
        name = sc.fresh(['n3', 'u3', 'r3', 'e3'])
        vals = [self.wrap(self.expr(sc, 1), CAP) for _ in range(3)]
        self.feat.add('double3')
        sc.add(Var(name, 'vec3', max(v[1] for v in vals), level=ctx.loopDepth))
        return [Simple('double3 %s = make_double3(%s);' % (
            name, ', '.join(v[0] for v in vals)))]

    # --- helpers ----------------------------------------------------------

    def qualifier(self):
        if self.deviceOnly:
            return self.r.choice(['__device__', '__host__ __device__'])
        if self.prog.cuda and self.chance(0.6):
            return '__host__ __device__'
        return ''

    def makeHelper(self):
        idx = len(self.helpers)
        kinds = ['scalar'] * 3 + ['arr']
        if allowed('array-callee'):
            kinds += ['ptrout', 'modify']
        if self.prog.cuda and allowed('double3'):
            kinds += ['vec3'] * (2 if self.deviceOnly else 1)
        kind = self.r.choice(kinds)
        nargs = self.r.randint(1, 2) if kind == 'scalar' else 1
        template = kind == 'scalar' and self.chance(0.12) and \
            allowed('template')
        scalarT = 'T' if template else 'double'
        pool = ['a', 'y', 'b', 'k', 's']
        if not allowed('param-y'):
            pool.remove('y')
        names = [n for n in pool]
        self.r.shuffle(names)
        if 'y' in names and self.chance(0.3):
            names.remove('y')  # the return seed of a pullback is _d_y
            names.insert(0, 'y')
        if 'y' in names[:nargs]:
            self.feat.add('helper-param-y')
        sc = Scope()
        params = []
        m = self.r.randint(1, 3)
        if kind in ('arr', 'modify', 'ptrout'):
            an = self.r.choice(['arr', 'o', 'buf', 'a3'])
            writable = kind != 'arr'
            params.append(('double *' if writable else 'const double *', an))
            sc.add(Var(an, 'arr', HARG, size=m, writable=writable))
        if kind == 'vec3':
            params.append(('double3', 'n'))
            sc.add(Var('n', 'vec3', HARG))
        for n in names[:nargs]:
            params.append((scalarT, n))
            v = sc.add(Var(n, 'd', HARG))
            v.isParam = True
        if kind == 'ptrout':
            params = params[1:] + params[:1]
        ret = 'void' if kind == 'ptrout' else scalarT
        ns = '@ns%d' % idx if self.chance(0.1) and allowed('namespace') \
            else None
        f = Func('@h%d' % idx, ret, params, self.qualifier(),
                 'template <class T>' if template else None, ns)
        if template:
            self.feat.add('helper-template')
        if ns:
            self.feat.add('helper-namespace')
        ctx = Ctx(ret, allowReturn=self.chance(0.5))
        saved, self.maxDepth = self.maxDepth, 2
        body = self.block(sc, ctx, self.r.randint(1, 4))
        self.maxDepth = saved
        if kind in ('ptrout', 'modify'):
            an = params[-1][1] if kind == 'ptrout' else params[0][1]
            for k in range(m):
                e, _ = self.wrap(self.expr(sc, 2), CAP)
                body.append(Simple('%s[%d] = %s;' % (an, k, e)))
        if ret != 'void':
            e, _ = self.wrap(self.expr(sc, 2), CAP)
            body.append(Simple('return %s;' % e, deletable=False))
        f.body = body
        self.helpers.append(Helper(kind, f, nargs, m))
        self.prog.helpers.append(f)
        self.feat.add('helper-' + kind)


def fmt(x):
    s = repr(float(x))
    return s
