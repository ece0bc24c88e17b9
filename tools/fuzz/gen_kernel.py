"""Random well-defined CUDA kernels for the meshad fuzzer.

Shapes: 1D with a guard `if (i < n)`, 1D with an early `return`, grid-stride
loops, 2D indices. Inputs are read anywhere (neighbours modulo n), outputs
only at the thread's own element, energies go through atomicAdd(&E[0], e),
__shared__ tiles are filled by every thread before __syncthreads() and only
read after it, block reductions sum a __shared__ array in thread 0. Helpers
are __device__ or __host__ __device__ (double3 arguments included).
"""

import random

from gen import CAP, INPUT, Ctx, Gen, Scope, Var, allowed
from model import Func, If, Loop, Param, Simple


class KernelGen(Gen):
    def __init__(self, seed):
        Gen.__init__(self, seed, 'kernel', cuda=True)
        self.deviceOnly = True
        self.inputs = set()    # arrays of n elements read anywhere
        self.tiles = {}        # shared array name -> size
        self.n = 'n'
        self.atomicTargets = []  # arrays that statements may atomicAdd to

    def stmt(self, sc, ctx):
        if self.atomicTargets and self.chance(0.08):
            e, _ = self.wrap(self.expr(sc, 2), CAP)
            t = self.r.choice(self.atomicTargets)
            if t == 'E':
                self.feat.add('atomic-in-body')
                return [Simple('atomicAdd(&E[0], %s);' % e)]
            self.feat.add('atomic-scatter')
            idx = self.r.choice(['i', '(i + 1) %% %s' % self.n,
                                 '(i + %s - 1) %% %s' % (self.n, self.n)])
            return [Simple('atomicAdd(&%s[%s], %s);' % (t, idx, e))]
        return Gen.stmt(self, sc, ctx)

    def index(self, sc, a):
        if a.fixedIndex:
            return a.fixedIndex
        if a.name in self.tiles:
            b = self.tiles[a.name]
            x = self.r.random()
            if x < 0.4:
                return 'threadIdx.x'
            if x < 0.7:
                return '(threadIdx.x + %d) %% %d' % (self.r.randint(1, b - 1), b)
            return Gen.index(self, sc, a)
        if a.name in self.inputs:
            x = self.r.random()
            ints = [v for v in sc.of('int') if v.lo >= 0 and v.name != 'i']
            if x < 0.35:
                return 'i'
            if x < 0.55:
                return '(i + %d) %% %s' % (self.r.randint(1, 2), self.n)
            if x < 0.7:
                return '(i + %s - 1) %% %s' % (self.n, self.n)
            if ints and x < 0.85:
                return '(i + %s) %% %s' % (self.r.choice(ints).name, self.n)
            return str(self.r.randrange(a.size))
        return Gen.index(self, sc, a)


def kernelProgram(seed):
    g = KernelGen(seed)
    r, p = g.r, g.prog
    shape = r.choice(['1d-if'] * 3 + ['1d-return', 'grid-stride', '2d'])
    p.features.add('kernel-' + shape)
    for _ in range(r.randint(0, 2)):
        g.makeHelper()
    sc = Scope()
    params = []
    if shape == '2d':
        W, H = r.randint(3, 9), r.randint(2, 6)
        bx, by = r.choice([(4, 3), (8, 2), (2, 4)])
        p.block = (bx, by)
        p.grid = (-(-W // bx), -(-H // by))
        n = W * H
        params += [Param('int', 'W', value=W), Param('int', 'H', value=H)]
    else:
        B = r.choice([8, 16, 32])
        n = r.randint(B + 1, 3 * B)
        p.block = (B, 1)
        blocks = -(-n // B)
        p.grid = (max(1, blocks - 1) if shape == 'grid-stride' else blocks, 1)
        params.append(Param('int', 'n', value=n))
        sc.add(Var('n', 'int', lo=n, hi=n))
    params.append(Param('carr', 'x', size=n))
    g.inputs.add('x')
    if r.random() < 0.4:
        params.append(Param('carr', 'c', size=r.randint(2, 4)))
    scalars = r.sample(['s', 'k', 'a'], r.randint(0, 2))
    params += [Param('double', s) for s in scalars]
    outs = r.choice([['y'], ['E'], ['y', 'E'], ['y', 'E']])
    reuse = allowed('output-reuse')
    if not reuse and shape == 'grid-stride':
        outs = ['E']  # y would be stored in a loop
    if r.random() < 0.2 and shape != '2d' and reuse:
        outs.insert(0, 'v')  # updated in place
    if r.random() < 0.25:
        outs.append('g')  # scattered into with atomicAdd only
    wo = set(['y']) if 'y' in outs and r.random() < 0.5 else set()
    if not reuse and 'y' in outs:
        wo = set(['y'])  # stored once, at the end, never read
    for o in outs:
        params.append(Param('arr', o, size=1 if o == 'E' else n))
        params[-1].wo = o in wo
        params[-1].atomic = o in ('E', 'g')
    p.params = params
    for q in params:
        if q.kind == 'double':
            v = sc.add(Var(q.name, 'd', INPUT))
            v.isParam = True
        elif q.kind == 'carr':
            sc.add(Var(q.name, 'arr', INPUT, size=q.size, writable=False))
        elif q.kind == 'arr' and q.name not in ('E', 'g') and reuse:
            v = sc.add(Var(q.name, 'arr', INPUT, size=q.size))
            v.fixedIndex = 'i'
            v.readable = not q.wo
            if q.wo:
                p.features.add('write-only-output')
    sc.names.update(['i', 'E', 'ix', 'iy', 'W', 'H', 'x', 'c', 'y', 'v', 'g',
                     'tile', 'tile2'])

    body = []
    head = []
    shared = shape in ('1d-if', '1d-return') and r.random() < 0.45
    reduce = shape == '1d-if' and 'E' in outs and r.random() < 0.3
    if shape == '2d':
        g.n = '(W * H)'
        head.append(Simple('int ix = blockIdx.x * blockDim.x + threadIdx.x;',
                           deletable=False))
        head.append(Simple('int iy = blockIdx.y * blockDim.y + threadIdx.y;',
                           deletable=False))
    elif shape != 'grid-stride':
        head.append(Simple('int i = blockIdx.x * blockDim.x + threadIdx.x;',
                           deletable=False))
    if shared:
        B = p.block[0]
        p.features.add('shared')
        t = 'tile'
        g.tiles[t] = B
        load = g.wrap(g.expr(_loadScope(sc, g), 1), CAP)[0]
        # Its own random stream: the other programs of a seed stay as they
        # were before this construct.
        if (allowed('dynamic-shared') and
                random.Random(p.seed * 7919 + 17).random() < 0.5):
            p.features.add('dynamic-shared')
            p.sharedBytes = B * 8
            head.append(Simple('MESHAD_DYNAMIC_SHARED(double, %s);' % t,
                               deletable=False))
        else:
            head.append(Simple('__shared__ double %s[%d];' % (t, B),
                               deletable=False))
        op = r.choice(['+', '*', '-'])
        head.append(Simple('%s[threadIdx.x] = i < n ? x[i] %s %s : 0.0;' % (
            t, op, load), deletable=False))
        head.append(Simple('__syncthreads();', deletable=False))
        sc.add(Var(t, 'arr', CAP, size=B, writable=False))
        if r.random() < 0.4:
            # A second phase: each thread combines its neighbours' values.
            p.features.add('shared-two-phase')
            g.tiles['tile2'] = B
            e, _ = g.wrap(g.expr(_loadScope(sc, g, inputs=False), 2), CAP)
            head.append(Simple('__shared__ double tile2[%d];' % B,
                               deletable=False))
            head.append(Simple('tile2[threadIdx.x] = tile[(threadIdx.x + 1) '
                               '%% %d] * %s;' % (B, e), deletable=False))
            head.append(Simple('__syncthreads();', deletable=False))
            sc.add(Var('tile2', 'arr', CAP, size=B, writable=False))
    if reduce:
        p.features.add('block-reduce')
        head.append(Simple('__shared__ double red[%d];' % p.block[0],
                           deletable=False))
        head.append(Simple('red[threadIdx.x] = 0.0;', deletable=False))
        sc.names.add('red')

    g.atomicTargets = [o for o in outs if o == 'g' or o == 'E' and not reduce]
    ctx = Ctx('void', allowReturn=not reduce)
    ctx.depth = 1
    ins = [q.name for q in params if q.kind == 'double'] + ['x[i]']
    ins += ['c[0]'] if any(q.name == 'c' for q in params) else []
    ins += ['%s[i]' % o for o in outs if o not in ('E', 'g') and o not in wo]
    mix = '0.1 * (%s)' % ' + '.join(ins)
    inner = []
    for o in outs:
        if o == 'g':
            inner.append(Simple('atomicAdd(&g[i], %s);' % mix,
                                deletable=False))
        elif o == 'E':
            if not reduce:
                inner.append(Simple('atomicAdd(&E[0], %s);' % mix,
                                    deletable=False))
        elif reuse:
            inner.append(Simple('%s[i] = %s;' % (o, mix), deletable=False))
    if shape == 'grid-stride':
        ctx = ctx.nested(2)
    inner += g.block(sc, ctx, r.randint(2, 7))
    for o in outs:
        if o in ('E', 'g'):
            continue
        if not reuse:
            # The one store of the output.
            e, _ = g.wrap(g.expr(sc, 2), CAP)
            inner.append(Simple('%s[i] = %s + %s;' % (o, e, mix),
                                deletable=False))
        elif r.random() < 0.7:
            e, _ = g.wrap(g.expr(sc, 2), CAP)
            op = '=' if o in wo else r.choice(['=', '+='])
            inner.append(Simple('%s[i] %s %s;' % (o, op, e)))
    if 'E' in outs:
        p.features.add('atomic')
        e, _ = g.wrap(g.expr(sc, 2), CAP)
        if reduce:
            inner.append(Simple('red[threadIdx.x] = %s + %s;' % (e, mix),
                                deletable=False))
        else:
            inner.append(Simple('atomicAdd(&E[0], %s);' % e))
    if shape == '1d-if':
        body = head + [If('i < n', inner, guard=True)]
    elif shape == '1d-return':
        p.features.add('kernel-early-exit')
        body = head + [If('i >= n', [Simple('return;', deletable=False)],
                          guard=True)]
        body += inner
    elif shape == 'grid-stride':
        body = head + [Loop('for (int i = blockIdx.x * blockDim.x + '
                            'threadIdx.x; i < n; i += blockDim.x * gridDim.x)',
                            inner)]
    else:
        body = head + [If('ix < W && iy < H',
                          [Simple('int i = iy * W + ix;', deletable=False)] +
                          inner, guard=True)]
    if reduce:
        body.append(Simple('__syncthreads();', deletable=False))
        body.append(If('threadIdx.x == 0', guard=True, then=[
            Simple('double sum = 0.0;', deletable=False),
            Loop('for (int j = 0; j < %d; ++j)' % p.block[0],
                 [Simple('sum += red[j];', deletable=False)]),
            Simple('atomicAdd(&E[0], sum);', deletable=False)]))
        body[-1].deletable = False
    f = Func('@k', 'void', [(q.ctype(), q.name) for q in params], '__global__')
    f.body = body
    p.top = f
    specs = [q.name for q in params if q.kind == 'double']
    specs += [q.name for q in params if q.kind in ('carr', 'arr')
              and not q.atomic and not q.wo]
    p.fwdSpecs = specs
    return p


def _loadScope(sc, g, inputs=True):
    """What a tile load may read: scalars, small arrays, tiles, and (only
    under `i < n`) the inputs of n elements."""
    s = Scope()
    for v in sc.vars:
        if v.kind == 'd' or (v.kind == 'arr' and not v.fixedIndex and (
                inputs or v.name not in g.inputs)):
            s.add(v)
    return s
