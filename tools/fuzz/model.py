"""The program model of the meshad fuzzer: statements, functions, programs.

Names written with '@' (functions, namespaces) are replaced by a per-program
prefix when a program is rendered, so that many programs share one
translation unit.
"""


class Stmt:
    """A statement; `deletable` tells the reducer whether it may go."""

    deletable = True

    def bodies(self):
        """The statement lists nested in this one (for the reducer)."""
        return []


class Simple(Stmt):
    def __init__(self, text, deletable=True):
        self.text = text
        self.deletable = deletable

    def render(self, ind):
        return [ind + self.text]


class If(Stmt):
    def __init__(self, cond, then, els=None, guard=False):
        self.cond = cond
        self.then = then
        self.els = els
        # A guard (i < n in a kernel) is never deleted nor replaced by its
        # body: what it guards would go out of bounds.
        self.guard = guard
        self.deletable = not guard

    def bodies(self):
        return [self.then] + ([self.els] if self.els is not None else [])

    def render(self, ind):
        out = [ind + 'if (%s) {' % self.cond]
        out += renderBlock(self.then, ind + '  ')
        if self.els:
            out.append(ind + '} else {')
            out += renderBlock(self.els, ind + '  ')
        out.append(ind + '}')
        return out


class Loop(Stmt):
    """`for (...)`, `while (...)` or `do ... while (...);` with a body."""

    def __init__(self, head, body, tail=None):
        self.head = head
        self.body = body
        self.tail = tail

    def bodies(self):
        return [self.body]

    def render(self, ind):
        out = [ind + self.head + ' {']
        out += renderBlock(self.body, ind + '  ')
        out.append(ind + '}' + (' ' + self.tail if self.tail else ''))
        return out


class Switch(Stmt):
    """`switch (value) { case ...: ... }`: arms of (labels, body, end),
    labels a list of ints or ['default'], end 'break', 'fallthrough' or
    None (the last arm)."""

    def __init__(self, value, arms):
        self.value = value
        self.arms = arms

    def bodies(self):
        return [body for _, body, _ in self.arms]

    def render(self, ind):
        out = [ind + 'switch (%s) {' % self.value]
        for labels, body, end in self.arms:
            for l in labels:
                out.append(ind + ('default:' if l == 'default'
                                  else 'case %d:' % l))
            # Braces: declarations in an arm are not jumped over.
            out.append(ind + '  {')
            out += renderBlock(body, ind + '    ')
            out.append(ind + '  }')
            if end == 'break':
                out.append(ind + '  break;')
            elif end == 'fallthrough':
                out.append(ind + '  [[fallthrough]];')
        out.append(ind + '}')
        return out


def renderBlock(stmts, ind):
    out = []
    for s in stmts:
        out += s.render(ind)
    return out


class Func:
    def __init__(self, name, ret, params, qual='', template=None,
                 namespace=None):
        self.name = name          # '@f', '@h0'
        self.ret = ret            # 'double', 'void', 'T'
        self.params = params      # [(ctype, name)]
        self.qual = qual          # '', '__host__ __device__', '__global__'
        self.template = template  # e.g. 'template <class T>'
        self.namespace = namespace
        self.body = []

    def callName(self):
        if self.namespace:
            return '%s::%s' % (self.namespace, self.name)
        return self.name

    def render(self):
        params = ', '.join('%s %s' % (t, n) for t, n in self.params)
        lines = []
        if self.namespace:
            lines.append('namespace %s {' % self.namespace)
        if self.template:
            lines.append(self.template)
        qual = self.qual + ' ' if self.qual else ''
        lines.append('%s%s %s(%s) {' % (qual, self.ret, self.name, params))
        lines += renderBlock(self.body, '  ')
        lines.append('}')
        if self.namespace:
            lines.append('} // namespace %s' % self.namespace)
        return '\n'.join(lines)


class Param:
    """A parameter of the function under test, as the harness sees it.

    kind: 'double' (differentiable scalar), 'int' (passive, `value`),
    'carr' (const double *, read only), 'arr' (double *, written; with
    `device`, a device buffer the caller passes: the harness copies it in
    and out, and its adjoint too).
    """

    def __init__(self, kind, name, size=0, value=0):
        self.kind = kind
        self.name = name
        self.size = size
        self.value = value
        self.wo = False  # a written array that is never read
        self.atomic = False  # kernels: only added to with atomicAdd
        self.device = False  # pipelines: an 'arr' in device memory

    def ctype(self):
        return {'double': 'double', 'int': 'int', 'carr': 'const double *',
                'arr': 'double *'}[self.kind]


class Program:
    def __init__(self, seed, family):
        self.seed = seed
        self.family = family      # 'host' or 'kernel'
        self.cuda = family == 'kernel'  # needs the CUDA-on-CPU emulation
        self.helpers = []
        self.top = None
        self.params = []          # [Param] of top
        self.grid = (1, 1)        # kernels: launch shape (x, y)
        self.block = (1, 1)
        self.sharedBytes = 0      # kernels: the dynamic shared memory
        self.features = set()
        self.fwdSpecs = []        # forward-mode requests: 'x', 'p[2]', 'v'

    def mode(self):
        return 'cuda' if self.cuda else 'cpp'

    def source(self, prefix):
        parts = [f.render() for f in self.helpers] + [self.top.render()]
        return '\n\n'.join(parts).replace('@', prefix) + '\n'

    def allBodies(self):
        """Every statement list of every function (for the reducer)."""
        out = []

        def walk(stmts):
            out.append(stmts)
            for s in stmts:
                for b in s.bodies():
                    walk(b)

        for f in self.helpers + [self.top]:
            walk(f.body)
        return out
