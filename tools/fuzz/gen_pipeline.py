"""Host pipelines that launch kernels, for the meshad fuzzer.

A host function copies its host inputs into device buffers (cudaMalloc,
cudaMemcpy), launches 2-5 small generated elementwise kernels (1D with a
guard `if (i < n)`; inputs read at i and at neighbours modulo n; the output
written at i only) and adds an energy into a device scalar with atomicAdd,
copies it back and returns it (sometimes also copying a buffer back into a
host output `out`). Between the launches: in-place updates (`y[i] =
f(y[i], ...)`), `+=` accumulations, buffers reused for another result,
cudaMemset, loops of launches over an int trip count (a buffer updated in
place, or ping-pong buffers swapped through a temporary pointer), and a
pointer chosen by `?:`. These are the shapes of the two silent wrong
gradients of host code found by hand (buffers that a later launch
overwrites; a pointer chosen by `?:` losing its aliasing).

Every buffer is zeroed when it is allocated, so that any launch may be
deleted (by the reducer) and the program stays well defined. A kernel never
gets the same buffer as an input and as its output (no races).
"""

from gen import CAP, INPUT, Ctx, Scope, Var
from gen_kernel import KernelGen
from model import Func, If, Loop, Param, Simple

BUF = 4.0    # cap of what a kernel stores into a buffer
ACC = 1.0    # cap of what a `+=` kernel adds
READ = 8.0   # bound of what a kernel reads from a buffer
DEVICE = ['u', 'v', 'w', 'z', 'r']  # device buffers besides x (and q)
KINDS = ['map'] * 4 + ['inplace'] * 3 + ['acc'] * 2
BLOCKS = [4, 8]


class PipelineGen:
    """One host pipeline: its kernels (helpers of the program) and the host
    body, generated together (a kernel is made for each launch site)."""

    def __init__(self, seed):
        self.g = KernelGen(seed)
        self.g.prog.family = 'pipeline'
        self.r = self.g.r
        self.p = self.g.prog
        self.kernels = 0
        self.body = []
        self.live = []      # device buffers that hold a result
        self.alias = {'E': {'E'}}  # pointer -> the allocations it may be

    # --- kernels ----------------------------------------------------------

    def kernel(self, kind, nIn, scalars, n, atI=0):
        """A new __global__ kernel `@kJ(n, a[, b][, scalars], y)`; kind is
        map (y[i] = e), inplace (y[i] = e(y[i])), acc (y[i] += e) or energy
        (atomicAdd(&E[0], e)). Returns its name."""
        g, r = self.g, self.r
        name = '@k%d' % self.kernels
        self.kernels += 1
        g.inputs = set()
        sc = Scope()
        sc.names.update(['i', 'n', 'a', 'b', 'y', 'E', 's', 'k'])
        sc.add(Var('n', 'int', lo=n, hi=n))
        params = [('int', 'n')]
        ins = []
        for a in ['a', 'b'][:nIn]:
            params.append(('const double *', a))
            ins.append(sc.add(Var(a, 'arr', READ, size=n, writable=False)))
            if len(ins) <= atI:
                ins[-1].fixedIndex = 'i'  # read at i only: may be y
            else:
                g.inputs.add(a)
        for s in scalars:
            params.append(('double', s))
            sc.add(Var(s, 'd', INPUT)).isParam = True
        out = 'E' if kind == 'energy' else 'y'
        if kind == 'inplace':
            y = sc.add(Var('y', 'arr', READ, size=n, writable=False))
            y.fixedIndex = 'i'
        params.append(('double *', out))
        ctx = Ctx('void', allowReturn=False)
        ctx.depth = 1
        inner = g.block(sc, ctx, r.randint(0, 2))
        e = g.expr(sc, 2)
        for a in ins:  # every input reaches the output
            if a.name + '[' not in e[0]:
                c = r.choice(['0.5', '-0.75', '1.25'])
                e = ('%s + %s * %s[%s]' % (e[0], c, a.name, g.index(sc, a)),
                     e[1] + abs(float(c)) * READ)
        if kind == 'inplace' and 'y[i]' not in e[0]:
            e = ('%s * y[i] + %s' % (r.choice(['0.5', '-0.75', '1.25']), e[0]),
                 1.25 * READ + e[1])
        if kind == 'energy':
            store = 'atomicAdd(&E[0], %s);' % g.wrap(e, CAP)[0]
        elif kind == 'acc':
            store = 'y[i] += %s;' % g.wrap(e, ACC)[0]
        else:
            store = 'y[i] = %s;' % g.wrap(e, BUF)[0]
        inner.append(Simple(store))
        f = Func(name, 'void', params, '__global__')
        f.body = [Simple('int i = blockIdx.x * blockDim.x + threadIdx.x;',
                         deletable=False), If('i < n', inner, guard=True)]
        self.p.helpers.append(f)
        self.p.features.add('pipeline-' + kind)
        return name

    # --- launches ---------------------------------------------------------

    def launch(self, kind, out, ins, atI=0):
        """A launch of a new kernel of `kind` writing `out` and reading the
        buffers `ins` and some host scalars; only the first `atI` of `ins`,
        read at i only, may be `out`."""
        r = self.r
        scalars = [s for s in self.scalars if r.random() < 0.6]
        count, n = 'n', self.n
        if r.random() < 0.15:
            # On n - 1 elements, some buffers from their second element.
            self.p.features.add('pipeline-offset')
            count, n = 'n - 1', self.n - 1
            ins = [b + ' + 1' if r.random() < 0.5 else b for b in ins]
            if atI:  # the output at the same offset as its alias
                out += ins[0][len(out):]
            elif out != 'E' and r.random() < 0.5:
                out += ' + 1'
        k = self.kernel(kind, len(ins), scalars, n, atI)
        args = [count] + ins + scalars + [out]
        return Simple('MESHAD_LAUNCH(%s, dim3(%d), dim3(%d))(%s);' % (
            k, self.grid, self.B, ', '.join(args)))

    def sources(self, out, m):
        """Up to m buffers to read, none of them `out` (results first)."""
        pool = [b for b in self.live if not self.overlap(b, out)]
        self.r.shuffle(pool)
        return pool[:self.r.randint(1, m)] if pool else []

    def overlap(self, a, b):
        return bool(self.alias[a] & self.alias[b])

    def step(self):
        """One statement of the pipeline: a launch (most often), a loop, a
        choice by `?:`, a launch under an `if`, a cudaMemset, an energy
        term, a device-to-device copy, a host input copied in again, the
        host output or the energy copied back midway."""
        r = self.r
        steps = [(10, self.launchStep), (2, self.choose), (3, self.loop),
                 (1, self.memset), (2, self.energy), (1, self.copy),
                 (1, self.upload), (1, self.condLaunch), (2, self.copyBack)]
        x = r.uniform(0, sum(w for w, _ in steps))
        for w, f in steps:
            x -= w
            if x < 0:
                out = f()
                if out:
                    return out
        return self.launchStep()

    def launchStep(self):
        r = self.r
        if r.random() < 0.12:
            return self.aliasedLaunch()
        kind = r.choice(KINDS)
        if kind == 'map':
            out = r.choice(self.bufs[1:])
        else:
            out = r.choice(self.live)
        if out in self.live and kind == 'map':
            self.p.features.add('pipeline-reuse')
        ins = self.sources(out, 2 if kind == 'map' else 1)
        if not ins and kind != 'inplace':
            kind = 'inplace'
            out = r.choice(self.live)
            ins = []
        if out not in self.live:
            self.live.append(out)
        return [self.launch(kind, out, ins)]

    def aliasedLaunch(self):
        """A launch given one buffer twice: as an input read at i only and
        as the output (`k(n, y, y)`), or as two inputs (`k(n, x, x, z)`)."""
        r = self.r
        self.p.features.add('pipeline-aliased-args')
        if r.random() < 0.6:
            y = r.choice(self.live)
            ins = [y] + self.sources(y, 1)[:r.randint(0, 1)]
            return [self.launch('map', y, ins, atI=1)]
        src = r.choice(self.live)
        outs = [b for b in self.bufs[1:] if not self.overlap(b, src)]
        if not outs:
            return None
        out = r.choice(outs)
        if out not in self.live:
            self.live.append(out)
        return [self.launch('map', out, [src, src])]

    def memset(self):
        if len(self.live) < 2:
            return None
        b = self.r.choice([b for b in self.bufs if b != 'x'])
        self.p.features.add('pipeline-memset')
        if b in self.live:
            self.live.remove(b)
        return [Simple('cudaMemset(%s, 0, Bytes);' % b)]

    def energy(self):
        """An energy term from intermediate results (buffers that later
        launches overwrite)."""
        self.p.features.add('pipeline-energy-midway')
        self.nEnergy += 1
        return [self.launch('energy', 'E', self.sources('E', 2))]

    def copy(self):
        r = self.r
        src = r.choice(self.live)
        dsts = [b for b in self.allocated[1:] if not self.overlap(b, src)]
        if not dsts:
            return None
        dst = r.choice(dsts)
        self.p.features.add('pipeline-copy')
        if dst not in self.live:
            self.live.append(dst)
        return [Simple('cudaMemcpy(%s, %s, Bytes, cudaMemcpyDeviceToDevice);'
                       % (dst, src))]

    def upload(self):
        """A host input copied again into a buffer (that held a result)."""
        dst = self.r.choice(self.allocated[1:])
        self.p.features.add('pipeline-upload')
        if dst not in self.live:
            self.live.append(dst)
        return [Simple('cudaMemcpy(%s, %s, Bytes, cudaMemcpyHostToDevice);'
                       % (dst, self.r.choice(self.hostIns)))]

    def condLaunch(self):
        """A launch under an `if` on an int or on a scalar parameter."""
        self.p.features.add('pipeline-if')
        conds = ['n %% 3 != %d' % self.r.randint(0, 2)] + \
            ['steps != %d' % self.r.randint(0, 3)] * self.steps + \
            ['%s > 0.0' % s for s in self.scalars]
        return [If(self.r.choice(conds), self.launchStep())]

    def copyBack(self):
        """The host output copied back midway (then the buffer may be
        overwritten), or the energy so far into a second value."""
        if self.outMid is None and self.hasOut:
            self.outMid = True
            self.p.features.add('pipeline-out-midway')
            return [Simple('cudaMemcpy(out, %s, Bytes, '
                           'cudaMemcpyDeviceToHost);' % self.r.choice(
                               self.live), deletable=False)]
        if self.e0 or not self.nEnergy:
            return None
        self.e0 = True
        self.p.features.add('pipeline-energy-copied')
        return [Simple('double e0 = 0;', deletable=False),
                Simple('cudaMemcpy(&e0, E, sizeof(double), '
                       'cudaMemcpyDeviceToHost);', deletable=False)]

    def loop(self):
        """`for (int t = 0; t < steps; ++t)`: in place, or ping-pong between
        two buffers swapped through a temporary pointer."""
        r = self.r
        if not self.steps:
            return None
        cur = r.choice(self.live)
        nxts = [b for b in self.allocated[1:] if not self.overlap(b, cur)]
        if r.random() < 0.5 or not nxts:
            y = cur
            ins = self.sources(y, 1) if r.random() < 0.5 else []
            body = [self.launch('inplace', y, ins)]
            if r.random() < 0.3:
                body.append(self.launch('energy', 'E', [y]))
            self.p.features.add('pipeline-loop-inplace')
            return self.loopAround(body)
        self.p.features.add('pipeline-ping-pong')
        nxt = r.choice(nxts)
        self.pp += 1
        c, d = 'cur%d' % self.pp, 'nxt%d' % self.pp
        head = [Simple('double *%s = %s, *%s = %s;' % (c, cur, d, nxt),
                       deletable=False)]
        others = [b for b in self.live
                  if not self.overlap(b, cur) and not self.overlap(b, nxt)]
        ins = [c] + ([r.choice(others)] if others and r.random() < 0.5
                     else [])
        body = [self.launch('map', d, ins),
                Simple('double *tmp = %s;' % c, deletable=False),
                Simple('%s = %s;' % (c, d), deletable=False),
                Simple('%s = tmp;' % d, deletable=False)]
        # After the loop the result is in cur (y or z by the parity of steps).
        self.alias[c] = self.alias[d] = self.alias[cur] | self.alias[nxt]
        self.bufs.append(c)
        self.live.append(c)
        if nxt not in self.live:
            self.live.append(nxt)
        return head + [Loop('for (int t = 0; t < steps; ++t)', body)]

    def loopAround(self, body):
        """A loop of `steps` trips around \p body: a for loop (launches
        on even trips only, or an inner loop of two trips, at times) or a
        while loop."""
        r = self.r
        self.pp += 1
        t = 't%d' % self.pp
        x = r.random()
        if x < 0.2:
            self.p.features.add('pipeline-loop-if')
            body = [If('%s %% 2 == 0' % t, body)]
        elif x < 0.35:
            self.p.features.add('pipeline-loop-nested')
            body = [Loop('for (int j = 0; j < 2; ++j)', body)]
        elif x < 0.5:
            self.p.features.add('pipeline-loop-while')
            return [Simple('int %s = 0;' % t, deletable=False),
                    Loop('while (%s < steps)' % t, body + [
                        Simple('++%s;' % t, deletable=False)])]
        return [Loop('for (int %s = 0; %s < steps; ++%s)' % (t, t, t), body)]

    def choose(self):
        """`double *q = cond ? y : z;` then a launch reading or writing q."""
        r = self.r
        if self.select or len(self.live) < 2:
            return None
        self.select = True
        self.p.features.add('pipeline-select')
        a, b = r.sample(self.live, 2)
        cond = r.choice(['n % 2 == 0', 'n > %d' % r.randint(4, 12)] +
                        (['steps > 1'] if self.steps else []) +
                        ['%s > 0.0' % s for s in self.scalars])
        out = [Simple('double *q = %s ? %s : %s;' % (cond, a, b),
                      deletable=False)]
        self.alias['q'] = self.alias[a] | self.alias[b]
        self.bufs.append('q')
        self.live.append('q')
        if r.random() < 0.5:
            others = [v for v in self.live if not self.overlap(v, 'q')]
            ins = [r.choice(others)] if others else []
            out.append(self.launch('inplace', 'q', ins))
        return out


def pipelineProgram(seed):
    """A host pipeline under test, its kernels and helpers."""
    pg = PipelineGen(seed)
    r, p = pg.r, pg.p
    for _ in range(r.randint(0, 1)):
        pg.g.makeHelper()
    pg.B = r.choice(BLOCKS)
    pg.n = r.randint(pg.B + 1, 3 * pg.B)
    pg.grid = -(-pg.n // pg.B)
    pg.scalars = sorted(r.sample(['s', 'k'], r.randint(0, 2)))
    pg.steps = r.random() < 0.6
    pg.select = False
    pg.pp = 0
    pg.outMid = None
    pg.e0 = False
    pg.nEnergy = 0
    device = _params(pg)
    body = _prologue(pg, device)
    launches = 0
    target = r.randint(2, 5)
    while launches < target:
        stmts = pg.step()
        launches += sum(1 for s in _walk(stmts) if 'MESHAD_LAUNCH' in
                        getattr(s, 'text', ''))
        body += stmts
    f = Func('@f', 'double', [(q.ctype(), q.name) for q in p.params])
    f.body = body + _epilogue(pg)
    p.top = f
    # Forward mode of host code that launches kernels is an error today:
    # the F units count as rejected. Along xh (always copied to the device:
    # a scalar that reaches no launch would give a derivative without
    # `out`'s tangent, which the harness does not expect).
    p.fwdSpecs = ['xh']
    # WithValue cannot put the primal's results back into caller memory
    # that the gradient restores (an error): rarely with a caller buffer.
    p.withValue = r.random() < (0.05 if device else 0.3)
    if p.withValue:
        p.features.add('pipeline-with-value')
    return p


def _params(pg):
    """The parameters of the pipeline: host inputs xh (and ph), scalars,
    at times a host output `out` and a device buffer `y` of the caller's,
    n and the trip count `steps`. True when there is a `y`."""
    r, p, n = pg.r, pg.p, pg.n
    params = [Param('carr', 'xh', size=n)]
    pg.hostIns = ['xh']
    if r.random() < 0.4:
        params.append(Param('carr', 'ph', size=n))
        pg.hostIns.append('ph')
    params += [Param('double', s) for s in pg.scalars]
    if r.random() < 0.35:
        params.append(Param('arr', 'out', size=n))
        params[-1].wo = True
        p.features.add('pipeline-out')
    device = r.random() < 0.3
    if device:
        # A device buffer of the caller's, read and updated in place.
        params.append(Param('arr', 'y', size=n))
        params[-1].device = True
        p.features.add('pipeline-caller-buffer')
    pg.hasOut = any(q.name == 'out' for q in params)
    params.append(Param('int', 'n', value=n))
    if pg.steps:
        params.append(Param('int', 'steps', value=r.randint(0, 3)))
    p.params = params
    return device


def _prologue(pg, device):
    """Allocations (zeroed) and the host inputs copied in."""
    hostIns = pg.hostIns
    nDev = pg.r.randint(2, 4)
    pg.bufs = ['x'] + (['p'] if 'ph' in hostIns else []) + DEVICE[:nDev]
    pg.live = list(pg.bufs[:len(hostIns)])
    pg.allocated = list(pg.bufs)
    if device:
        pg.bufs.append('y')
        pg.live.append('y')
    for b in pg.bufs:
        pg.alias[b] = {b}
    body = [Simple('size_t Bytes = n * sizeof(double);'),
            Simple('double %s, *E;' % ', '.join('*' + b
                                                for b in pg.allocated))]
    body += [Simple('cudaMalloc(&%s, Bytes);' % b) for b in pg.allocated]
    body.append(Simple('cudaMalloc(&E, sizeof(double));'))
    body += [Simple('cudaMemset(%s, 0, Bytes);' % b)
             for b in pg.allocated[len(hostIns):]]
    body.append(Simple('cudaMemset(E, 0, sizeof(double));'))
    body += [Simple('cudaMemcpy(%s, %s, Bytes, cudaMemcpyHostToDevice);' % (
        b, h)) for b, h in zip(pg.bufs, hostIns)]
    for s in body:
        s.deletable = False
    return body


def _epilogue(pg):
    """The last energies, copies back, frees and the return."""
    r = pg.r
    body = [pg.launch('energy', 'E', pg.sources('E', 2))
            for _ in range(r.choice([1, 1, 2]))]
    tail = [Simple('double e = 0;'),
            Simple('cudaMemcpy(&e, E, sizeof(double), '
                   'cudaMemcpyDeviceToHost);')]
    if r.random() < 0.25:
        # The energy also from a buffer copied back into a host array.
        pg.p.features.add('pipeline-host-readback')
        b = r.choice(pg.live)
        tail += [Simple('double hb[%d];' % pg.n),
                 Simple('cudaMemcpy(hb, %s, Bytes, cudaMemcpyDeviceToHost);'
                        % b),
                 Loop('for (int j = 0; j < n; ++j)', [
                     Simple('e += %s * hb[j] * hb[j];' % r.choice(
                         ['0.1', '0.25', '-0.5']), deletable=False)])]
    if pg.hasOut and not pg.outMid:
        tail.append(Simple('cudaMemcpy(out, %s, Bytes, '
                           'cudaMemcpyDeviceToHost);' % r.choice(pg.live)))
    tail += [Simple('cudaFree(%s);' % b) for b in pg.allocated + ['E']]
    ret = 'e'
    if pg.e0:
        ret = 'e - %s * e0' % r.choice(['0.5', '1.5'])
    if pg.scalars and r.random() < 0.3:
        ret = '%s * (%s)' % (r.choice(pg.scalars), ret)
    tail.append(Simple('return %s;' % ret))
    for s in tail:
        s.deletable = False
    return body + tail


def _walk(stmts):
    for s in stmts:
        yield s
        for b in s.bodies():
            for t in _walk(b):
                yield t
