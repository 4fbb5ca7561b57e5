"""strata-vmcc: the code side of the synchronisation analysis (docs/vmcc.md section 3).

A mixin of the Rewriter. While it emits a function it carries the set of *valid* images (keys
whose local image equals memory at this point on every path, Algorithm 1) through the
statements: a simple statement may use valid images its own effects do not disturb, loads the
stable lvalues it reads unconditionally once before it runs (preloads), and leaves valid what
it read or stored that its effects did not kill. Control flow: both arms of an `if` start from
the state after the condition and meet in the intersection; a loop keeps only what nothing in
it can kill (and loads its loop-invariant lvalues lazily, once per entry, behind a flag); labels,
`case` and `switch` start from nothing; `break`, `continue`, `goto` and `return` end a path.
Images live in variables declared at the top of the function (one per key), so jumps never
cross a declaration.
"""
import copy

from pycparser import c_ast

from sync import promotable

SIMPLE = (c_ast.Decl, c_ast.Assignment, c_ast.Cast, c_ast.UnaryOp, c_ast.BinaryOp,
          c_ast.TernaryOp, c_ast.FuncCall, c_ast.ArrayRef, c_ast.StructRef, c_ast.Constant,
          c_ast.ID, c_ast.ExprList, c_ast.Return)
WRITE_OPS = ("++", "--", "p++", "p--")


def meet(a, b):
    """The state where two paths join (None: a path that cannot reach here)."""
    if a is None:
        return b
    if b is None:
        return a
    return a & b


class SyncGen:
    def func_state(self):
        self.images = {}        # key text -> (image variable, its type)
        self.kinfo = {}         # key text -> sync.Key
        self.valid = set()      # keys whose image equals memory here (None: unreachable)
        self.usable = set()     # images the statement being emitted may read
        self.site_load = set()  # keys an expression region loads where it reads them
        self.lazy = {}          # loop-invariant keys -> their loaded flag
        self.promoted = {}      # keys living in their image through a loop -> sync.Key
        self.flags = []
        self.top_lv = self.top_key = None

    def sync_on(self):
        return self.sync is not None and getattr(self, "in_body", False)

    # images
    def image(self, k):
        self.kinfo.setdefault(k.text, k)
        if k.text not in self.images:
            t = copy.deepcopy(k.type)
            n = t
            while not isinstance(n, c_ast.TypeDecl):
                if isinstance(n, c_ast.PtrDecl) and n is t:
                    n.quals = []
                n = n.type
            n.declname = None
            if n is t:
                n.quals = []
            ty = self._generate_type(c_ast.Typename(None, [], None, t))
            self.images[k.text] = ("vmcc_im%d" % (len(self.images) + 1), ty)
        return self.images[k.text][0]

    def image_decls(self, body):
        if not self.images and not self.flags:
            return body
        assert body.startswith("{\n")
        d = ["  __typeof__(%s) %s = 0; (void)%s;\n" % (ty, name, name)
             for name, ty in self.images.values()]
        d += ["  int %s = 0; (void)%s;\n" % (f, f) for f in self.flags]
        return "{\n" + "".join(d) + body[2:]

    def img_load(self, k):
        """Statements loading key k's image from memory (its type checked by the compiler)."""
        img = self.image(k)
        self.site += 1
        a = "vmcc_a%d" % self.site
        return ("__auto_type %s = %s; (void)sizeof(char[__builtin_types_compatible_p("
                "__typeof__(%s), __typeof__(((void)0, *%s))) ? 1 : -1]); %s"
                % (a, self.addr(k.node), img, a, self._load(k.cls, self.lcb(k.node), a, img)))

    def sync_read(self, n):
        """The text of a read of n through its image, or None for a per-access read."""
        if not self.sync_on() or self.uneval or \
                not (self.usable or self.site_load or self.lazy or self.promoted):
            return None
        k = self.sync.key(n)
        if k is None:
            return None
        t = k.text
        if t in self.usable or t in self.promoted:
            return "(%s)" % self.image(k)
        if t in self.site_load:
            return "({ %s %s; })" % (self.img_load(k), self.image(k))
        if t in self.lazy:
            f, img = self.lazy[t], self.image(k)
            return "(%s ? %s : ({ %s %s = 1; %s; }))" % (f, img, self.img_load(k), f, img)
        return None

    def promoted_write(self, n, op, value):
        """An assignment (op '=' or 'x' for x=) or ++/-- (op WRITE_OPS) of a promoted key: its
        image only; the loop's exits write it back."""
        if not self.promoted or not self.sync_on():
            return None
        k = self.sync.key(n)
        if k is None or k.text not in self.promoted:
            return None
        img = self.image(k)
        if op in WRITE_OPS:
            return "(%s%s)" % (img, op[1:]) if op.startswith("p") else "(%s%s)" % (op, img)
        return "(%s %s= (%s))" % (img, "" if op == "=" else op, value)

    def writebacks(self, keys):
        out = ""
        for k in keys:
            self.site += 1
            a = "vmcc_a%d" % self.site
            out += "{ __auto_type %s = %s; %s } " % (a, self.addr(k.node), self._store(
                k.cls, self.lcb(k.node), a, self.image(k)))
        return out

    def sync_rmw_load(self, n, i):
        """For x op= v and ++x: the image instead of a load when it is usable."""
        if self.sync_on() and self.usable:
            k = self.sync.key(n)
            if k is not None and k.text in self.usable:
                return "%s = %s;" % (i, self.image(k))
        return None

    def sync_store_tail(self, n, i):
        """After the statement's top-level store: its image holds the stored value."""
        if self.top_lv is not None and n is self.top_lv:
            return " %s = %s;" % (self.image(self.top_key), i)
        return ""

    # simple statements
    def _generate_stmt(self, n, add_indent=False):
        if not self.sync_on() or not isinstance(n, SIMPLE):
            return super()._generate_stmt(n, add_indent)
        sy = self.sync
        fx = sy.scan(n)
        self.top_lv, self.top_key = self.top_target(n)
        valid = self.valid or set()
        self.usable = {t for t in valid if not sy.killed(self.kinfo[t], fx, self.top_lv)}
        pre = [k for t, k in fx.reads_u.items() if t not in self.usable and t not in self.lazy
               and t not in self.promoted and not sy.killed(k, fx, self.top_lv)]
        loads = "".join("{ %s } " % self.img_load(k) for k in pre)
        self.usable |= {k.text for k in pre}
        text = super()._generate_stmt(n, add_indent)
        if isinstance(n, c_ast.Return) and self.promoted:
            loads += self.writebacks(self.promoted.values())
        after = {t for t in valid | self.usable if not sy.killed(self.kinfo[t], fx)}
        if self.top_key is not None:
            after.add(self.top_key.text)
        self.usable = set()
        self.top_lv = self.top_key = None
        self.valid = None if isinstance(n, c_ast.Return) else after
        if loads:
            ind = " " * (self.indent_level + (2 if add_indent else 0))
            text = text.lstrip()
            if isinstance(n, c_ast.Decl):
                return ind + loads + "\n" + text
            return ind + "{ " + loads + "\n" + text + ind + "}\n"
        return text

    def top_target(self, n):
        lv = None
        if isinstance(n, c_ast.Assignment):
            lv = n.lvalue
        elif isinstance(n, c_ast.UnaryOp) and n.op in WRITE_OPS:
            lv = n.expr
        k = self.sync.key(lv) if lv is not None else None
        return (lv, k) if k is not None else (None, None)

    def region_expr(self, e):
        """A condition, a for-init or a for-next: loads where it reads, valid afterwards."""
        if e is None:
            return ""
        if not self.sync_on():
            return self.visit(e)
        sy = self.sync
        fx = sy.scan(e)
        valid = self.valid or set()
        self.usable = {t for t in valid if not sy.killed(self.kinfo[t], fx)}
        for t, k in fx.reads_u.items():
            if t not in self.usable and t not in self.lazy and t not in self.promoted \
                    and not sy.killed(k, fx):
                self.site_load.add(t)
                self.kinfo.setdefault(t, k)
        text = self.visit(e)
        self.valid = {t for t in valid | self.usable | self.site_load
                      if not sy.killed(self.kinfo[t], fx)}
        self.usable, self.site_load = set(), set()
        return text

    # loops
    def loop_enter(self, n):
        """Keys valid before the loop that nothing in it kills stay valid throughout; keys it
        reads that nothing in it kills become lazily loaded images (flags reset on entry)."""
        sy = self.sync
        fx = sy.scan(n)
        saved = dict(self.lazy), dict(self.promoted)
        valid = self.valid or set()
        resets, promote = "", []
        if fx.has_label:  # a jump may enter the loop past its entry
            h = set()
        else:
            h = {t for t in valid if not sy.killed(self.kinfo[t], fx)}
            for t, k in fx.all_reads().items():
                if t in self.promoted or t in self.lazy:
                    continue
                if promotable(sy, k, fx):
                    self.promoted[t] = k
                    promote.append(k)
                    continue
                if t in h or sy.killed(k, fx):
                    continue
                f = "vmcc_v%d" % (len(self.flags) + 1)
                self.flags.append(f)
                self.lazy[t] = f
                self.image(k)
                resets += "%s = 0; " % f
        for k in promote:
            resets += "{ %s } " % self.img_load(k)
        self.valid = set(h)
        return resets, saved, h

    def loop_exit(self, saved, h):
        """After the loop: promoted images written back (and valid); the rest as on entry."""
        new = [k for t, k in self.promoted.items() if t not in saved[1]]
        self.lazy, self.promoted = saved
        self.valid = set(h) | {k.text for k in new}
        return self.writebacks(new)

    def loop_text(self, resets, text, tail):
        if not resets and not tail:
            return text
        ind = " " * self.indent_level
        return "{ %s\n%s%s\n%s}" % (resets, ind, text.rstrip(), ind + tail)

    def visit_While(self, n):
        if not self.sync_on():
            return super().visit_While(n)
        resets, saved, h = self.loop_enter(n)
        cond = self.region_expr(n.cond)
        body = self._generate_stmt(n.stmt, add_indent=True)
        tail = self.loop_exit(saved, h)
        return self.loop_text(resets, "while (%s)\n%s" % (cond, body), tail)

    def visit_DoWhile(self, n):
        if not self.sync_on():
            return super().visit_DoWhile(n)
        resets, saved, h = self.loop_enter(n)
        body = self._generate_stmt(n.stmt, add_indent=True)
        self.valid = set(h)  # `continue` reaches the condition too
        cond = self.region_expr(n.cond)
        tail = self.loop_exit(saved, h)
        return self.loop_text(resets, "do\n%s%swhile (%s);" % (body, self._make_indent(), cond),
                              tail)

    def sync_for(self, n):
        resets, saved, h = self.loop_enter(n)
        init = self.region_expr(n.init)
        self.valid = set(h)  # the condition also follows `next`
        cond = self.region_expr(n.cond)
        body = self._generate_stmt(n.stmt, add_indent=True)
        self.valid = set(h)
        nxt = self.region_expr(n.next)
        tail = self.loop_exit(saved, h)
        return self.loop_text(resets, "for (%s;%s;%s)\n%s" % (
            init, " " + cond if n.cond else "", " " + nxt if n.next else "", body), tail)

    # branches and jumps
    def visit_If(self, n):
        if not self.sync_on():
            return super().visit_If(n)
        s = "if (%s)\n" % self.region_expr(n.cond)
        start = self.valid
        s += self._generate_stmt(n.iftrue, add_indent=True)
        end_true = self.valid
        self.valid = start
        if n.iffalse:
            s += self._make_indent() + "else\n" + self._generate_stmt(n.iffalse, add_indent=True)
        self.valid = meet(end_true, self.valid)
        return s

    def visit_Switch(self, n):
        if not self.sync_on():
            return super().visit_Switch(n)
        s = "switch (%s)\n" % self.region_expr(n.cond)
        self.valid = set()
        s += self._generate_stmt(n.stmt, add_indent=True)
        self.valid = set()
        return s

    def visit_Case(self, n):
        self.valid = set()
        return super().visit_Case(n)

    def visit_Default(self, n):
        self.valid = set()
        return super().visit_Default(n)

    def visit_Label(self, n):
        self.valid = set()
        return super().visit_Label(n)

    def visit_Break(self, n):
        self.valid = None
        return super().visit_Break(n)

    def visit_Continue(self, n):
        self.valid = None
        return super().visit_Continue(n)

    def visit_Goto(self, n):
        self.valid = None
        return super().visit_Goto(n)

    def leave_scope(self, declared):
        """Images whose address uses a variable going out of scope are dropped."""
        if self.sync_on() and self.valid:
            self.valid = {t for t in self.valid if not (self.kinfo[t].deps & declared)}
