"""Host functions under test for the meshad fuzzer: double parameters,
const arrays, written arrays (read and written, or write-only outputs),
an optional int trip count, helpers, and a body of random statements."""

import random

from gen import CAP, INPUT, Ctx, Gen, Scope, Var
from model import Func, Param, Simple


def hostProgram(seed):
    """A host function under test with helpers."""
    r0 = random.Random(seed * 7919 + 1)
    g = Gen(seed, 'host', cuda=r0.random() < 0.3)
    r = g.r
    p = g.prog
    for _ in range(r.randint(0, 3)):
        g.makeHelper()
    sc = Scope()
    names = r.sample(['x', 'y', 'z', 'k', 's', 'a'], r.randint(1, 3))
    params = [Param('double', n) for n in names]
    for n in r.sample(['p', 'q'], r.randint(0, 2)):
        params.append(Param('carr', n, size=r.randint(2, 5)))
    nArr = r.choice([0, 0, 1, 1, 2])
    for n in ['v', 'out'][:nArr]:
        params.append(Param('arr', n, size=r.randint(2, 4)))
        params[-1].wo = n == 'out' and r.random() < 0.5
    if r.random() < 0.35:
        params.append(Param('int', 'n', value=r.randint(2, 5)))
    r.shuffle(params)
    p.params = params
    ret = 'void' if nArr and r.random() < 0.4 else 'double'
    for q in params:
        if q.kind == 'double':
            v = sc.add(Var(q.name, 'd', INPUT))
            v.isParam = True
        elif q.kind == 'int':
            v = sc.add(Var(q.name, 'int', lo=q.value, hi=q.value))
            v.isParam = True
        else:
            v = sc.add(Var(q.name, 'arr', INPUT, size=q.size,
                           writable=q.kind == 'arr'))
            v.readable = not q.wo
            if q.wo:
                p.features.add('write-only-output')
    f = Func('@f', ret, [(q.ctype(), q.name) for q in params],
             g.qualifier() if p.cuda else '')
    ctx = Ctx(ret)
    body = mixStatements(g, params)
    body += g.block(sc, ctx, r.randint(3, 9))
    if ret == 'double':
        ds = sc.of('d')
        e, _ = g.wrap(g.expr(sc, 2), CAP)
        if ds:
            e = '%s + %s' % (e, ' * '.join(
                v.name for v in r.sample(ds, min(2, len(ds)))))
        body.append(Simple('return %s;' % e, deletable=False))
    f.body = body
    p.top = f
    p.fwdSpecs = forwardSpecs(r, params)
    return p


def mixStatements(g, params):
    """Writes into every written array a value that depends on every
    differentiable input (every array that is read included), so that
    forward mode gives each written array a tangent whatever is selected
    (the harness relies on it). Write-only outputs are written last and
    never selected."""
    ins = [q.name for q in params if q.kind == 'double'] + \
        ['%s[0]' % q.name for q in params if q.kind in ('carr', 'arr') and
         not q.wo]
    out = []
    for q in sorted(params, key=lambda q: q.wo):
        if q.kind != 'arr':
            continue
        out.append(Simple('%s[0] = 0.1 * (%s);' % (q.name, ' + '.join(ins)),
                          deletable=False))
    return out


def forwardSpecs(r, params):
    specs = []
    for q in params:
        if q.kind == 'double':
            specs.append(q.name)
        elif q.kind == 'carr':
            if r.random() < 0.25:
                specs.append(q.name)
            else:
                specs.append('%s[%d]' % (q.name, r.randrange(q.size)))
        elif q.kind == 'arr' and not q.wo:
            specs.append(q.name)
    return specs
