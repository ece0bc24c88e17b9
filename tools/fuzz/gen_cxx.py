"""The C++ constructs of issue 13 for the meshad fuzzer's generator: side
effects inside expressions (a[k++], assignments in conditions, the comma
operator, chained assignments, while (n--)), switch, if with an initializer
or a condition variable, range-based for over local arrays, assert /
printf, and non-const references (reference locals naming a scalar or an
array element, helpers that update a `double &` parameter), and a plain
struct with member functions, operators written as members and a helper
taking and returning it by value (struct-methods), heap scalars and buffers
(`new double(e)`, `new double[n]` with a constant local n or a size known
only at run time, in loops too, `malloc(n * sizeof(double))` of a run-time
size, heap-scalars) and virtual member functions called on a local object,
of a final class or of a class whose base holds data and whose member
functions make virtual calls on `this` (virtual-calls). Each is a
construct of gen.TOGGLES, so that --disable can switch it
off; the programs stay well-defined (every side effect is the only access
to its variable in its expression, indices stay in bounds).
"""

from model import If, Loop, Simple, Switch

KINDS = ['side-effects', 'switch', 'cond-init', 'range-for', 'assert-printf',
         'references', 'struct-methods', 'heap-scalars', 'virtual-calls']
# Not offered in CUDA programs (kernels and pipelines draw the same
# statements as before these were added).
HOST_ONLY = ['heap-scalars', 'virtual-calls']


def stmt(g, sc, ctx):
    """One statement of a construct that is switched on (or an assignment
    when none is)."""
    import gen
    kinds = [k for k in KINDS if gen.allowed(k) and
             not (g.prog.cuda and k in HOST_ONLY)]
    if not kinds:
        return g.s_assign(sc, ctx)
    kind = g.r.choice(kinds)
    return {'side-effects': sideEffect, 'switch': switch,
            'cond-init': condInit, 'range-for': rangeFor,
            'assert-printf': assertPrintf,
            'references': reference,
            'struct-methods': structMethods,
            'heap-scalars': heapScalars,
            'virtual-calls': virtualCalls}[kind](g, sc, ctx)


def sideEffect(g, sc, ctx):
    import gen
    ds = g.assignable(sc)
    if not ds:
        return g.s_decl(sc, ctx)
    v = g.r.choice(ds)
    x = g.r.random()
    arrs = [a for a in sc.of('arr') if a.size >= 2 and a.readable and
            not a.fixedIndex]
    outer = v.level < ctx.loopDepth
    cap = gen.LOOP_CAP if outer else gen.CAP
    if x < 0.25 and arrs:
        # int k = 0; v += a[k++] * e; v += a[k] * e;
        a = g.r.choice(arrs)
        k = sc.fresh(['k', 'idx', 'pos', 'at'])
        sc.names.add(k)
        e1, b1 = g.wrap(g.expr(sc, 1), 1.0)
        e2, b2 = g.wrap(g.expr(sc, 1), 1.0)
        v.bound += (a.bound * (b1 + b2)) * (ctx.trips if outer else 1)
        g.feat.add('post-increment-index')
        return [Simple('int %s = 0;' % k, deletable=False),
                Simple('%s += %s[%s++] * %s;' % (v.name, a.name, k, e1)),
                Simple('%s += %s[%s] * %s;' % (v.name, a.name, k, e2))]
    if x < 0.45:
        # if ((v *= 0.6 + 0.3 sin(s)) > c) ...
        s, _ = g.small(sc)
        g.feat.add('assignment-in-condition')
        then = g.block(sc.child(), ctx.nested(), g.r.randint(1, 2))
        return [If('(%s *= (0.6 + 0.3 * sin(%s))) > %s' % (
            v.name, s, g.r.choice(['0.0', '0.3', '-0.4'])), then)]
    if x < 0.65:
        # double t; v = (t = e, t * t);
        t = g.localName(sc)
        sc.names.add(t)
        e, b = g.wrap(g.expr(sc, 2), 4.0)
        v.bound = max(v.bound, b * b)
        g.feat.add('comma-operator')
        return [Simple('double %s;' % t, deletable=False),
                Simple('%s = (%s = %s, %s * %s);' % (v.name, t, e, t, t))]
    others = [w for w in ds if w is not v]
    if x < 0.8 and others:
        w = g.r.choice(others)
        e, b = g.rhs(sc, ctx, v)
        v.bound = max(v.bound, b)
        w.bound = max(w.bound, b)
        g.feat.add('chained-assignment')
        return [Simple('%s = %s = %s;' % (v.name, w.name, e))]
    # int n = 3; while (n--) { ... }
    n = sc.fresh(['n3', 'left', 'cnt'])
    trip = g.r.randint(1, 3)
    inner = sc.child()
    inner.add(gen.Var(n, 'int', lo=0, hi=trip - 1, level=ctx.loopDepth + 1))
    body = g.block(inner, ctx.nested(trip), g.r.randint(1, 3))
    g.feat.add('while-post-decrement')
    g.feat.add('loop')
    return [Simple('int %s = %d;' % (n, trip), deletable=False),
            Loop('while (%s--)' % n, body)]


def caseBody(g, sc, ctx):
    """Statements of a switch arm: no break or continue (they would leave
    the switch, not the loop)."""
    c = ctx.nested()
    c.allowReturn = ctx.allowReturn and not ctx.inLoopBody
    c.inLoopBody = False
    return g.block(sc.child(), c, g.r.randint(1, 2))


def switch(g, sc, ctx):
    ints = [v for v in sc.of('int') if v.lo >= 0]
    if ints and g.chance(0.7):
        value = '%s %% 3' % g.r.choice(ints).name
    else:
        d, _ = g.small(sc)
        value = '(%s) > 0.0 ? 1 : 2' % d
    arms = [([0], caseBody(g, sc, ctx), 'break')]
    second = caseBody(g, sc, ctx)
    if g.chance(0.4):
        arms.append(([1], second, 'fallthrough'))
        g.feat.add('switch-fallthrough')
    else:
        arms.append(([1, 2] if g.chance(0.3) else [1], second, 'break'))
    if g.chance(0.7):
        arms.append((['default'], caseBody(g, sc, ctx), None))
    g.feat.add('switch')
    return [Switch(value, arms)]


def condInit(g, sc, ctx):
    t = g.localName(sc)
    e, b = g.wrap(g.expr(sc, 2), gen_cap())
    inner = sc.child()
    import gen
    inner.add(gen.Var(t, 'd', b, writable=False, level=ctx.loopDepth))
    then = g.block(inner, ctx.nested(), g.r.randint(1, 2))
    if g.chance(0.6):
        g.feat.add('if-initializer')
        cond = 'double %s = %s; %s > %s' % (t, e, t, g.r.choice(
            ['0.0', '0.3', '-0.4', '1.0']))
    else:
        g.feat.add('condition-variable')
        cond = 'double %s = %s' % (t, e)
    sc.names.add(t)
    return [If(cond, then)]


def gen_cap():
    import gen
    return gen.CAP


def rangeFor(g, sc, ctx):
    import gen
    arrs = [a for a in sc.of('arr') if getattr(a, 'isLocalArray', False)]
    if not arrs:
        return g.s_localarr(sc, ctx)
    a = g.r.choice(arrs)
    v = sc.fresh(['el', 'item', 'v2', 'cur2'])
    sc.names.add(v)
    inner = sc.child()
    nctx = ctx.nested(a.size)
    if g.chance(0.5):
        # A reference: writes go to the array.
        g.feat.add('range-for-reference')
        e, b = g.wrap(g.expr(inner, 1), 1.0)
        a.bound = a.bound + b * a.size
        body = [Simple('%s = 0.5 * %s + %s;' % (v, v, e))]
        head = 'for (double &%s : %s)' % (v, a.name)
    else:
        g.feat.add('range-for')
        inner.add(gen.Var(v, 'd', a.bound, writable=False,
                          level=nctx.loopDepth))
        body = g.block(inner, nctx, g.r.randint(1, 2))
        head = 'for (%s %s : %s)' % (g.r.choice(['double', 'const double &',
                                                 'auto']), v, a.name)
    g.feat.add('loop')
    return [Loop(head, body)]


def assertPrintf(g, sc, ctx):
    ds = sc.of('d')
    if not ds:
        return g.s_decl(sc, ctx)
    v = g.r.choice(ds)
    if g.chance(0.5):
        g.feat.add('assert')
        return [Simple('assert(%s > -1e30);' % v.name)]
    g.feat.add('printf')
    return [If('%s > 1e30' % v.name,
               [Simple('printf("large: %%g\\n", %s);' % v.name)])]


# Bodies of the reference helper: acc is updated from its old value and s
# (|s| <= HARG), with new bound 0.75 * bound(acc) + |s| * 0.5 at most.
REF_BODIES = ['acc = 0.5 * acc + 0.5 * s;',
              'acc += 0.25 * sin(s) - 0.25 * acc;\n  acc *= 0.5 + 0.25 * cos(s);',
              'double t = acc * 0.5;\n  acc = t + 0.25 * s * sin(t);']


def refHelper(g):
    """`void @hr(double &acc, double s)`, made once per program and placed
    first (it calls nothing)."""
    from model import Func
    if getattr(g, 'refHelper', None) is None:
        f = Func('@hr', 'void', [('double &', 'acc'), ('double', 's')],
                 g.qualifier())
        f.body = [Simple(line.strip()) for line in
                  g.r.choice(REF_BODIES).split('\n')]
        g.prog.helpers.insert(0, f)
        g.refHelper = f
    return g.refHelper


def reference(g, sc, ctx):
    """`double &r = v;` or `double &r = a[c];` then updates through r, or a
    call of a helper that updates its `double &` parameter."""
    import gen
    ds = g.assignable(sc)
    arrs = [a for a in sc.of('arr') if a.writable and a.readable and
            a.size >= 1 and not a.fixedIndex and
            getattr(a, 'isLocalArray', False)]
    if not ds and not arrs:
        return g.s_decl(sc, ctx)
    outer_scale = ctx.trips
    if arrs and (not ds or g.chance(0.5)):
        a = g.r.choice(arrs)
        target, var = '%s[%d]' % (a.name, g.r.randrange(a.size)), a
    else:
        v = g.r.choice(ds)
        target, var = v.name, v
    s, _ = g.wrap(g.expr(sc, 1), gen.HARG)
    if g.chance(0.5):
        h = refHelper(g)
        var.bound = var.bound + 0.5 * gen.HARG * outer_scale
        g.feat.add('reference-parameter')
        return [Simple('%s(%s, %s);' % (h.callName(), target, s))]
    r = sc.fresh(['ref', 'slot', 'rr', 'acc2'])
    sc.names.add(r)
    e, b = g.wrap(g.expr(sc, 1), 1.0)
    var.bound = var.bound + b * outer_scale
    g.feat.add('reference-local')
    return [Simple('double &%s = %s;' % (r, target), deletable=False),
            Simple('%s = 0.5 * %s + %s;' % (r, r, e))]


class StructDef:
    """A struct definition among a program's helpers (rendered as text)."""

    def __init__(self, text):
        self.text = text
        self.body = []

    def render(self):
        return self.text


# Members keep |a|, |b| <= 1 when they start so: scale by at most 0.75, mix
# and the helper average, dot() is at most 0.75.
STRUCT_TEXT = """struct @S2 {
  double a, b;
  QUAL double dot() const { return 0.25 * (a * b) + 0.5 * sin(a); }
  QUAL void scale(double s) {
    a *= s;
    b *= s;
  }
  QUAL @S2 operator+(const @S2 &o) const {
    return {0.5 * (a + o.b), 0.5 * (b - o.a)};
  }
  QUAL double operator[](int i) const { return i == 0 ? a : b; }
};

QUAL @S2 @ps(@S2 p, double s) {
  @S2 q;
  q.a = p.a * 0.5 + 0.25 * sin(s);
  q.b = p.b * cos(s) * 0.5;
  return q;
}"""


def structHelper(g):
    """The struct @S2 and its helper @ps, made once per program and placed
    first."""
    if getattr(g, 'structHelper', None) is None:
        qual = '__host__ __device__ ' if g.prog.cuda else ''
        g.structHelper = StructDef(STRUCT_TEXT.replace('QUAL ', qual))
        g.prog.helpers.insert(0, g.structHelper)
    return g.structHelper


def structMethods(g, sc, ctx):
    """`@S2 sv{e1, e2}; sv.scale(f); sv = sv + @ps(sv, s); v = 0.5 * v +
    sv.dot() + sv[1];`"""
    import gen
    ds = g.assignable(sc)
    if not ds:
        return g.s_decl(sc, ctx)
    v = g.r.choice(ds)
    structHelper(g)
    sv = sc.fresh(['sv', 'pt', 'st2'])
    sc.names.add(sv)
    e1, _ = g.wrap(g.expr(sc, 1), 1.0)
    e2, _ = g.wrap(g.expr(sc, 1), 1.0)
    s, _ = g.wrap(g.expr(sc, 1), gen.HARG)
    v.bound = 0.5 * v.bound + 2.0 * ctx.trips + v.bound * ctx.trips
    g.feat.add('struct-methods')
    out = [Simple('@S2 %s{%s, %s};' % (sv, e1, e2), deletable=False),
           Simple('%s.scale(0.5 + 0.25 * sin(%s));' % (sv, s))]
    if g.chance(0.6):
        out.append(Simple('%s = %s + @ps(%s, %s);' % (sv, sv, sv, s)))
    out.append(Simple('%s = 0.5 * %s + %s.dot() + %s[%d];' % (
        v.name, v.name, sv, sv, g.r.randrange(2))))
    return out


def heapScalars(g, sc, ctx):
    """Host code: `double *hp = new double(e); *hp = 0.5 * *hp + f;
    v = 0.5 * v + *hp; delete hp;`, or a buffer `int hn = 2; double *hb =
    new double[hn]; ... delete[] hb;`."""
    ds = g.assignable(sc)
    if not ds or g.prog.cuda:
        return g.s_decl(sc, ctx)
    v = g.r.choice(ds)
    e1, b1 = g.wrap(g.expr(sc, 1), 1.0)
    e2, b2 = g.wrap(g.expr(sc, 1), 1.0)
    v.bound = 0.5 * v.bound + (b1 + b2) * ctx.trips + v.bound * ctx.trips
    if g.chance(0.5):
        p = sc.fresh(['hp', 'cell', 'boxed'])
        sc.names.add(p)
        g.feat.add('new-scalar')
        return [Simple('double *%s = new double(%s);' % (p, e1),
                       deletable=False),
                Simple('*%s = 0.5 * *%s + %s;' % (p, p, e2), deletable=False),
                Simple('%s = 0.5 * %s + *%s;' % (v.name, v.name, p),
                       deletable=False),
                Simple('delete %s;' % p, deletable=False)]
    n, b = sc.fresh(['hn', 'count']), sc.fresh(['hb', 'buf', 'heap'])
    sc.names.update([n, b])
    size = [Simple('int %s = 2;' % n, deletable=False)]
    alloc, release = 'new double[%s]' % n, 'delete[] %s;' % b
    if g.chance(0.5):
        # A size known only at run time (changed after its declaration):
        # the buffer stays on the heap (in a loop, one per iteration).
        g.feat.add('new-runtime-size' if ctx.loopDepth == 0
                   else 'new-runtime-in-loop')
        size.append(Simple('%s += %s > 1e30;' % (n, v.name), deletable=False))
        if g.chance(0.4):
            g.feat.add('malloc-runtime-size')
            alloc = '(double *)malloc(%s * sizeof(double))' % n
            release = 'free(%s);' % b
    else:
        g.feat.add('new-local-size')
    return size + [
            Simple('double *%s = %s;' % (b, alloc), deletable=False),
            Simple('%s[0] = %s;' % (b, e1), deletable=False),
            Simple('%s[1] = %s * %s[0];' % (b, e2, b), deletable=False),
            Simple('%s = 0.5 * %s + %s[1];' % (v.name, v.name, b),
                   deletable=False),
            Simple(release, deletable=False)]


VIRTUAL_TEXT = """struct @V1 {
  virtual double eval(double s) const { return s; }
  virtual double scale() const { return 0.5; }
  virtual ~@V1() {}
};

struct @V2 final : @V1 {
  double k;
  double eval(double s) const override { return scale() * k * sin(s) + 0.25 * k; }
};

struct @V0 : @V1 {
  double k;
  double scaled() const { return scale() * k; }
};

struct @V3 : @V0 {
  double scale() const override { return 0.25; }
  double eval(double s) const override { return scaled() * sin(s) + 0.25 * k; }
};"""


def virtualCalls(g, sc, ctx):
    """Host code: `@V2 vo; vo.k = e; v = 0.5 * v + vo.eval(s);` (a virtual
    member function called on a local object: its dynamic type is known; the
    class derives from an interface @V1 without data), or `@V3 vo;` of a
    class that is not final, whose base @V0 holds `k` and calls the virtual
    `scale()` on `this`."""
    import gen
    ds = g.assignable(sc)
    if not ds or g.prog.cuda:
        return g.s_decl(sc, ctx)
    v = g.r.choice(ds)
    if getattr(g, 'virtualHelper', None) is None:
        g.virtualHelper = StructDef(VIRTUAL_TEXT)
        g.prog.helpers.insert(0, g.virtualHelper)
    o = sc.fresh(['vo', 'obj', 'shape'])
    sc.names.add(o)
    e, _ = g.wrap(g.expr(sc, 1), 1.0)
    s, _ = g.wrap(g.expr(sc, 1), gen.HARG)
    v.bound = 0.5 * v.bound + 1.0 * ctx.trips + v.bound * ctx.trips
    g.feat.add('virtual-calls')
    cls = '@V2'
    if g.chance(0.5):
        g.feat.add('virtual-this-base-data')
        cls = '@V3'
    return [Simple('%s %s;' % (cls, o), deletable=False),
            Simple('%s.k = %s;' % (o, e), deletable=False),
            Simple('%s = 0.5 * %s + %s.eval(%s);' % (v.name, v.name, o, s),
                   deletable=False)]
