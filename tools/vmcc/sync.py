"""strata-vmcc's synchronisation analysis (FaTVM Section 5.2, Algorithms 1 and 2; docs/vmcc.md
section 3): which lvalues may keep a local image across statements, and which statements
desynchronise an image.

An image is keyed by its lvalue's text. Only *stable* lvalues get one (Key): a scalar or pointer
lvalue in virtual memory whose address is computed from constants, the addresses of virtual
globals and function-local variables that are never address-taken (so nothing but their own
name changes them). Everything else keeps today's per-access code.

Effects name what a statement (or a loop, or a whole function for its callers) may change:
('local', name) a local variable; ('virt', vname) a virtual global by name; ('univ', None) any
memory through a pointer; ('phys', None) physical memory through a pointer or an external call;
'top' (Effects.top) anything. `kills` is the paper's "desynchronises" relation, conservative:
pointers may point anywhere their address could have reached.

Writes stay write-through (every assignment still stores at once), so memory is always current
and only reads are saved; the statement's own store refreshes its image.
"""
from pycparser import c_ast, c_generator

PHYS, VIRT, UNIV = "phys", "virt", "univ"
ARITH = {"+", "-", "*", "/", "%", "<<", ">>", "&", "|", "^"}
WRITE_OPS = ("++", "--", "p++", "p--")
_TEXT = c_generator.CGenerator()


class VmccScanError(Exception):
    pass


class Key:
    """A stable lvalue: its text (the image's identity), class, virtual base and the locals its
    address depends on."""

    def __init__(self, text, cls, base, deps, node, type_):
        self.text, self.cls, self.base, self.deps, self.node, self.type = \
            text, cls, base, deps, node, type_


class Effects:
    def __init__(self):
        self.writes = []     # (kind, name, node)
        self.top = False     # an effect the analysis cannot bound: every image is stale
        self.reads_u = {}    # key text -> Key, read whenever the code runs
        self.reads_c = {}    # read on some evaluations only (&&, ||, ?:)
        self.has_label = False   # a goto label, or a case outside any switch of its own
        self.has_goto = False
        self.vreads = set()      # virtual globals read by name (vnames)
        self.call_vreads = set() # ... of which by the functions it calls
        self.switches = 0

    def read(self, k, cond):
        (self.reads_c if cond else self.reads_u).setdefault(k.text, k)

    def all_reads(self):
        out = dict(self.reads_c)
        out.update(self.reads_u)
        return out


class Sync:
    """The analysis; `rw` is the Rewriter (its scopes, type model and lvalue classes)."""

    def __init__(self, rw, funcdefs, address_taken, error_type):
        self.rw = rw
        self.funcdefs = funcdefs
        self.address_taken = address_taken
        self.Error = error_type
        self.summaries = {}
        self.busy = set()

    # ---- what desynchronises an image -------------------------------------------------------
    def exposed(self, vname):
        """May a pointer reach virtual global vname? (an array or aggregate decays or has
        members; a scalar only if its address is taken somewhere)."""
        info = self.rw.vinfo.get(vname)
        if info is None:
            return True
        orig, t = info
        return orig in self.address_taken or self.rw.t.kind(t) not in ("scalar", "ptr")

    def kills(self, k, kind, name):
        if kind == "local":
            return name in k.deps
        if kind == "phys":
            return k.cls == UNIV
        if kind == "virt":
            return (k.cls == VIRT and k.base == name) or (k.cls == UNIV and self.exposed(name))
        return k.cls == UNIV or self.exposed(k.base)  # univ

    def killed(self, k, fx, skip=None):
        if fx.top:
            return True
        return any(self.kills(k, kind, name) for kind, name, node in fx.writes
                   if skip is None or node is not skip)

    # ---- stable lvalues ---------------------------------------------------------------------
    def key(self, n):
        rw = self.rw
        try:
            cls = rw.lclass(n)
            if cls == PHYS:
                return None
            t = rw.typeof(n)
            if rw.t.kind(t) not in ("scalar", "ptr") or self.volatile(n) or self.const_typedef(t):
                return None
            deps = set()
            if not self.addr_ok(n, deps):
                return None
            base = self.virt_base(n) if cls == VIRT else None
        except self.Error:
            return None
        return Key(_TEXT.visit(n), cls, base, deps, n, t)

    def addr_ok(self, n, deps):
        rw = self.rw
        if isinstance(n, c_ast.ID):
            return rw.lookup(n.name, n).kind == "vglobal"
        if isinstance(n, c_ast.ArrayRef):
            k = rw.t.kind(rw.typeof(n.name))
            if k == "array":
                return self.addr_ok(n.name, deps) and self.val_ok(n.subscript, deps)
            if k == "ptr":
                return self.val_ok(n.name, deps) and self.val_ok(n.subscript, deps)
            return False
        if isinstance(n, c_ast.StructRef):
            if n.type == ".":
                return self.addr_ok(n.name, deps)
            return self.val_ok(n.name, deps)
        if isinstance(n, c_ast.UnaryOp) and n.op == "*":
            return self.val_ok(n.expr, deps)
        return False

    def val_ok(self, n, deps):
        """n's value reads no memory and changes only when a local is assigned by name."""
        rw = self.rw
        if isinstance(n, c_ast.Constant):
            return n.type != "string"
        if isinstance(n, c_ast.ID):
            s = rw.lookup(n.name, n)
            if s.kind == "const":
                return True
            if s.kind == "vglobal":
                return rw.t.kind(s.type) == "array"  # its (constant) address
            if s.kind == "var" and self.is_local(n.name) and n.name not in self.address_taken \
                    and rw.t.kind(s.type) in ("scalar", "ptr") and not self.vol_type(s.type):
                deps.add(n.name)
                return True
            return False
        if isinstance(n, c_ast.BinaryOp) and n.op in ARITH:
            return self.val_ok(n.left, deps) and self.val_ok(n.right, deps)
        if isinstance(n, c_ast.UnaryOp) and n.op in ("-", "+", "~", "!"):
            return self.val_ok(n.expr, deps)
        if isinstance(n, c_ast.Cast):
            return self.val_ok(n.expr, deps)
        return False

    def is_local(self, name):
        for i in range(len(self.rw.scopes) - 1, -1, -1):
            if name in self.rw.scopes[i]:
                return i > 0
        return False

    def virt_base(self, n):
        while not isinstance(n, c_ast.ID):
            n = n.name
        return self.rw.lookup(n.name, n).vname

    def vol_type(self, t):
        return self._qual(t, "volatile")

    def const_typedef(self, t):
        """A typedef'd const type: its image could not be assigned."""
        return isinstance(t, c_ast.TypeDecl) and isinstance(t.type, c_ast.IdentifierType) \
            and t.type.names[-1] in self.rw.t.typedefs and self._qual(t, "const")

    def _qual(self, t, q):
        for _ in range(60):
            if isinstance(t, c_ast.Typename):
                t = t.type
            elif isinstance(t, c_ast.TypeDecl):
                if q in t.quals:
                    return True
                if isinstance(t.type, c_ast.IdentifierType) and t.type.names[-1] in self.rw.t.typedefs:
                    t = self.rw.t.typedefs[t.type.names[-1]]
                else:
                    return False
            elif isinstance(t, c_ast.PtrDecl):
                return q in t.quals
            elif isinstance(t, c_ast.ArrayDecl):
                t = t.type
            else:
                return False
        return True

    def volatile(self, n):
        rw = self.rw
        if self.vol_type(rw.typeof(n)):
            return True
        if isinstance(n, c_ast.StructRef):
            if n.type == ".":
                return self.volatile(n.name) or self.vol_type(rw.typeof(n.name))
            return self.vol_type(rw.t.target(rw.typeof(n.name)))
        if isinstance(n, c_ast.ArrayRef) and rw.t.kind(rw.typeof(n.name)) == "array":
            return self.volatile(n.name)
        if isinstance(n, c_ast.ID):
            return self.vol_type(rw.lookup(n.name, n).type)
        return False

    # ---- effects of code --------------------------------------------------------------------
    def scan(self, node):
        """The effects of a statement, an expression or a loop, in the current scopes."""
        fx = Effects()
        depth = len(self.rw.scopes)
        self.rw.scopes.append({})
        try:
            self.st(node, fx)
        except self.Error:
            fx.top = True
        finally:
            del self.rw.scopes[depth:]
        return fx

    def st(self, n, fx):
        rw = self.rw
        if n is None:
            return
        if isinstance(n, c_ast.Compound):
            rw.scopes.append({})
            for s in n.block_items or []:
                self.st(s, fx)
            rw.scopes.pop()
        elif isinstance(n, c_ast.If):
            self.ex(n.cond, fx, False)
            self.st(n.iftrue, fx)
            self.st(n.iffalse, fx)
        elif isinstance(n, (c_ast.While, c_ast.DoWhile)):
            self.ex(n.cond, fx, False)
            self.st(n.stmt, fx)
        elif isinstance(n, c_ast.For):
            rw.scopes.append({})
            self.st(n.init, fx)
            self.ex(n.cond, fx, False)
            self.ex(n.next, fx, False)
            self.st(n.stmt, fx)
            rw.scopes.pop()
        elif isinstance(n, c_ast.Switch):
            self.ex(n.cond, fx, False)
            fx.switches += 1
            self.st(n.stmt, fx)
            fx.switches -= 1
        elif isinstance(n, (c_ast.Case, c_ast.Default)):
            fx.has_label = fx.has_label or fx.switches == 0
            for s in n.stmts or []:
                self.st(s, fx)
        elif isinstance(n, c_ast.Label):
            fx.has_label = True
            self.st(n.stmt, fx)
        elif isinstance(n, c_ast.Return):
            self.ex(n.expr, fx, False)
        elif isinstance(n, c_ast.Decl):
            self.decl(n, fx)
        elif isinstance(n, c_ast.DeclList):
            for d in n.decls:
                self.decl(d, fx)
        elif isinstance(n, c_ast.Goto):
            fx.has_goto = True
        elif isinstance(n, (c_ast.Break, c_ast.Continue, c_ast.EmptyStatement,
                            c_ast.Pragma, c_ast.Typedef)):
            pass
        else:
            self.ex(n, fx, False)

    def decl(self, n, fx):
        rw = self.rw
        if not n.name:
            return
        if isinstance(n.type, c_ast.FuncDecl):
            rw.declare(n.name, rw.sym_func(n))
            return
        if "static" in n.storage and not rw.is_physical(n):
            vname = "%s__%s" % (rw.func, n.name)
            rw.vinfo[vname] = (n.name, n.type)
            rw.declare(n.name, rw.sym_vglobal(n.type, vname))
            return  # initialised once, by vmcc_space_init
        if n.init is not None and "static" not in n.storage:
            self.ex(n.init, fx, False)
        fx.writes.append(("local", n.name, n))
        rw.declare(n.name, rw.sym_var(n.type))

    def ex(self, n, fx, c):
        rw = self.rw
        if n is None or isinstance(n, (c_ast.Constant, c_ast.Typename)):
            return
        if isinstance(n, c_ast.ID):
            s = rw.lookup(n.name, n)
            if s.kind == "vglobal" and rw.t.kind(s.type) not in ("array", "func"):
                self.read(n, fx, c)
        elif isinstance(n, (c_ast.ArrayRef, c_ast.StructRef)) or \
                (isinstance(n, c_ast.UnaryOp) and n.op == "*"):
            if rw.t.kind(rw.typeof(n)) not in ("array", "func") and rw.lclass(n) != PHYS:
                self.read(n, fx, c)
            self.ex_addr(n, fx, c)
        elif isinstance(n, c_ast.UnaryOp):
            if n.op in ("sizeof", "_Alignof"):
                return
            if n.op == "&":
                self.ex_addr(n.expr, fx, c)
            elif n.op in WRITE_OPS:
                self.write(n.expr, fx, c, True, n.expr)
            else:
                self.ex(n.expr, fx, c)
        elif isinstance(n, c_ast.Assignment):
            self.write(n.lvalue, fx, c, n.op != "=", n.lvalue)
            self.ex(n.rvalue, fx, c)
        elif isinstance(n, c_ast.BinaryOp):
            self.ex(n.left, fx, c)
            self.ex(n.right, fx, c or n.op in ("&&", "||"))
        elif isinstance(n, c_ast.TernaryOp):
            self.ex(n.cond, fx, c)
            self.ex(n.iftrue, fx, True)
            self.ex(n.iffalse, fx, True)
        elif isinstance(n, c_ast.FuncCall):
            self.call(n, fx, c)
        elif isinstance(n, c_ast.Cast):
            self.ex(n.expr, fx, c)
        elif isinstance(n, c_ast.CompoundLiteral):
            self.ex(n.init, fx, c)
        elif isinstance(n, (c_ast.ExprList, c_ast.InitList)):
            for e in n.exprs:
                self.ex(e, fx, c)
        elif isinstance(n, c_ast.NamedInitializer):
            self.ex(n.expr, fx, c)
        else:
            fx.top = True

    def ex_addr(self, n, fx, c):
        """The reads an lvalue's address computation makes (not the lvalue itself)."""
        rw = self.rw
        if isinstance(n, c_ast.ID):
            return
        if isinstance(n, c_ast.ArrayRef):
            if rw.t.kind(rw.typeof(n.name)) == "array":
                self.ex_addr(n.name, fx, c)
                self.ex(n.subscript, fx, c)
            elif rw.t.kind(rw.typeof(n.subscript)) == "array":
                self.ex_addr(n.subscript, fx, c)
                self.ex(n.name, fx, c)
            else:
                self.ex(n.name, fx, c)
                self.ex(n.subscript, fx, c)
        elif isinstance(n, c_ast.StructRef):
            (self.ex_addr if n.type == "." else self.ex)(n.name, fx, c)
        elif isinstance(n, c_ast.UnaryOp) and n.op == "*":
            self.ex(n.expr, fx, c)
        else:
            self.ex(n, fx, c)

    def read(self, n, fx, c):
        if self.rw.lclass(n) == VIRT:
            fx.vreads.add(self.virt_base(n))
        k = self.key(n)
        if k is not None:
            fx.read(k, c)

    def write(self, lv, fx, c, rmw, node):
        rw = self.rw
        cls = rw.lclass(lv)
        if rmw and cls != PHYS:
            self.read(lv, fx, c)
        self.ex_addr(lv, fx, c)
        if cls == VIRT:
            fx.writes.append(("virt", self.virt_base(lv), node))
        elif cls == UNIV:
            fx.writes.append(("univ", None, node))
        else:
            r = lv
            while isinstance(r, (c_ast.ArrayRef, c_ast.StructRef)):
                r = r.name
            if not isinstance(r, c_ast.ID):
                fx.writes.append(("univ", None, node))
                return
            s = rw.lookup(r.name, r)
            if self.is_local(r.name):
                fx.writes.append(("local", r.name, node))
            if not self.is_local(r.name) or r.name in self.address_taken or \
                    rw.t.kind(s.type) not in ("scalar", "ptr"):
                fx.writes.append(("phys", None, node))

    def call(self, n, fx, c):
        rw = self.rw
        args = n.args.exprs if n.args else []
        for a in args:
            self.ex(a, fx, c)
        if not isinstance(n.name, c_ast.ID):
            self.ex(n.name, fx, c)
            fx.top = True
            return
        name = n.name.name
        if name.startswith("__vmcc_va"):
            if args and isinstance(args[0], c_ast.ID):
                fx.writes.append(("local", args[0].name, n))
            return
        s = rw.lookup(name, n.name)
        if s.kind != "func":
            fx.top = True  # through a function pointer: anything
            return
        if name in rw.wrapped:
            fx.writes.append(("univ", None, n))  # memcpy, fread ... into virtual memory
            return
        if s.external:
            # libc and other code that is not virtualized touches no virtual memory (vmcc_phys),
            # but may write physical memory a pointer reaches; a callback may do anything
            fx.writes.append(("phys", None, n))
            for a in args:
                t = rw.typeof(a)
                if rw.t.kind(t) == "func" or (rw.t.kind(t) == "ptr" and
                                               rw.t.kind(rw.t.target(t)) == "func"):
                    fx.top = True
            return
        summ = self.summary(name)
        if summ is None:
            fx.top = True
        else:
            fx.writes.extend((kind, nm, n) for kind, nm in summ[0])
            fx.vreads |= summ[1]
            fx.call_vreads |= summ[1]

    def summary(self, name):
        """What a call of the program's function `name` may change (callees included), or None
        when unbounded (recursion, function pointers, code vmcc cannot type)."""
        if name in self.summaries:
            return self.summaries[name]
        fd = self.funcdefs.get(name)
        if fd is None or name in self.busy:
            return None
        rw = self.rw
        self.busy.add(name)
        saved, saved_func = rw.scopes, rw.func
        rw.scopes = [saved[0], {}]
        rw.func = name
        fx = Effects()
        try:
            rw.declare_params(fd)
            self.st(fd.body, fx)
        except self.Error:
            fx.top = True
        finally:
            rw.scopes, rw.func = saved, saved_func
            self.busy.discard(name)
        result = None if fx.top else \
            ([(k, nm) for k, nm, _ in fx.writes if k != "local"], frozenset(fx.vreads))
        self.summaries[name] = result
        return result


def promotable(sy, k, fx):
    """May key k live in its image for a whole loop with effects fx, written back at its
    exits (Algorithm 2)? Only a virtual scalar global no pointer can reach, which the loop
    writes, and which nothing in the loop but its own name reads or writes (no callee touches
    it), in a loop that no jump enters or leaves (returns write it back first). Keys the loop
    only reads are loop-invariant instead (lazy images, no write-back)."""
    if k.cls != VIRT or k.deps or not isinstance(k.node, c_ast.ID) or sy.exposed(k.base):
        return False
    if fx.top or fx.has_label or fx.has_goto or k.base in fx.call_vreads:
        return False
    writes = [node for kind, name, node in fx.writes if sy.kills(k, kind, name)]
    return bool(writes) and all(isinstance(node, c_ast.ID) for node in writes)


def address_taken_names(ast):
    """Every name whose address is taken (&x, &x.m, &x[i]) anywhere: such a variable may change
    through a pointer, so it is never a dependence of an image. By name, across scopes: a
    conservative over-approximation."""
    out = set()

    def walk(n):
        if isinstance(n, c_ast.UnaryOp) and n.op == "&":
            r = n.expr
            while isinstance(r, (c_ast.ArrayRef, c_ast.StructRef, c_ast.Cast)):
                r = r.expr if isinstance(r, c_ast.Cast) else r.name
            if isinstance(r, c_ast.ID):
                out.add(r.name)
        for _, ch in n.children():
            walk(ch)
    walk(ast)
    return out
