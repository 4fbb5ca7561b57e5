#!/usr/bin/python3
"""strata-vmcc: rewrite a C program so that its data lives in strata_vm (FaTVM, Section 5).

    /usr/bin/python3 tools/vmcc/vmcc.py [options] prog.c -o prog.vm.c

Every lvalue that may live in virtual memory (globals and statics not kept physical, every
pointer dereference) is read into and written from a local image through strata_vm; the
globals are relocated into the virtual space. docs/vmcc.md has the design, the rules and what
the tool refuses. Runs with Debian's python3-pycparser (/usr/bin/python3).
"""
import argparse
import copy
import os
import re
import subprocess
import sys

from pycparser import c_ast, c_generator, c_parser

import sync as vsync
from syncgen import SyncGen

HERE = os.path.dirname(os.path.abspath(__file__))
FAKE_INCLUDE = os.path.join(HERE, "include")

# libc calls replaced by vmcc_rt.h's wrappers, which take universal pointers.
WRAPPED = {"memcpy", "memmove", "memset", "memcmp", "strlen", "strcmp", "strncmp", "strcpy",
           "strncpy", "strcat", "strchr", "memchr", "fwrite", "fread", "fputs", "puts"}
# Variadic libc calls whose char * arguments are copied out of the vm (vmcc_cstr).
PRINTF_LIKE = {"printf", "fprintf", "sprintf", "snprintf"}
VA_MACROS = {"__vmcc_va_start": "va_start", "__vmcc_va_end": "va_end",
             "__vmcc_va_copy": "va_copy"}

PHYS, VIRT, UNIV = "phys", "virt", "univ"  # where an lvalue may live


class VmccError(Exception):
    pass


def where(node):
    c = getattr(node, "coord", None)
    return "%s:%s" % (c.file, c.line) if c else "?"


def refuse(node, what):
    raise VmccError("%s: vmcc refuses: %s" % (where(node), what))


# ---- types ----------------------------------------------------------------------------------

class Types:
    """Typedefs, struct/union tags, enumerators: enough to classify expressions."""

    def __init__(self):
        self.typedefs, self.tags, self.enumerators = {}, {}, set()

    def learn(self, ast):
        for node in walk(ast):
            if isinstance(node, c_ast.Typedef):
                self.typedefs[node.name] = node.type
            elif isinstance(node, (c_ast.Struct, c_ast.Union)) and node.name and node.decls is not None:
                self.tags[(type(node).__name__, node.name)] = node
            elif isinstance(node, c_ast.Enumerator):
                self.enumerators.add(node.name)

    def resolve(self, t):
        """The type with outer typedef names replaced (TypeDecl, PtrDecl, ArrayDecl, FuncDecl)."""
        seen = 0
        while isinstance(t, c_ast.TypeDecl) and isinstance(t.type, c_ast.IdentifierType):
            name = t.type.names[-1]
            if name not in self.typedefs or seen > 50:
                return t
            t, seen = self.typedefs[name], seen + 1
        if isinstance(t, c_ast.Typename):
            return self.resolve(t.type)
        return t

    def kind(self, t):
        t = self.resolve(t)
        if isinstance(t, c_ast.ArrayDecl):
            return "array"
        if isinstance(t, c_ast.PtrDecl):
            return "ptr"
        if isinstance(t, c_ast.FuncDecl):
            return "func"
        if isinstance(t, c_ast.TypeDecl) and isinstance(t.type, (c_ast.Struct, c_ast.Union)):
            return "struct"
        return "scalar"

    def target(self, t):
        t = self.resolve(t)
        return t.type if isinstance(t, (c_ast.ArrayDecl, c_ast.PtrDecl)) else None

    def member(self, t, field, node):
        t = self.resolve(t)
        su = t.type if isinstance(t, c_ast.TypeDecl) else None
        if not isinstance(su, (c_ast.Struct, c_ast.Union)):
            refuse(node, "member '%s' of something that is not a struct or union" % field)
        if su.decls is None:
            su = self.tags.get((type(su).__name__, su.name))
            if su is None:
                refuse(node, "member '%s' of an incomplete struct" % field)
        for d in su.decls:
            if d.name == field:
                if d.bitsize is not None:
                    refuse(node, "bit-field '%s' (no address to read it through)" % field)
                return d.type
            if d.name is None:  # anonymous struct/union member
                try:
                    return self.member(d.type, field, node)
                except VmccError:
                    pass
        refuse(node, "no member '%s'" % field)


def walk(node):
    yield node
    for _, child in node.children():
        yield from walk(child)


INT = c_ast.TypeDecl(None, [], None, c_ast.IdentifierType(["int"]))
CHARP = c_ast.PtrDecl([], c_ast.TypeDecl(None, [], None, c_ast.IdentifierType(["char"])))


def strip_name(t):
    t = copy.deepcopy(t)
    n = t
    while not isinstance(n, c_ast.TypeDecl):
        n = n.type
    n.declname = None
    return t


# ---- the rewriter ---------------------------------------------------------------------------

class Sym:
    def __init__(self, kind, type_, vname=None, external=False):
        self.kind = kind          # "var" (physical), "vglobal" (virtual), "func", "const"
        self.type = type_
        self.vname = vname        # the name in the virtual space (statics renamed)
        self.external = external  # a function declared but not defined here (libc, ...)


class Rewriter(SyncGen, c_generator.CGenerator):
    def __init__(self, types, user_files, physical, lcbs=True):
        super().__init__()
        self.wrapped = WRAPPED
        self.vinfo = {}           # vname -> (source name, type): the synchronisation analysis
        self.sync = None          # a sync.Sync when the analysis is on (docs/vmcc.md section 3)
        self.func_state()
        self.t = types
        self.user_files = user_files
        self.physical = set(physical)
        self.lcbs = lcbs
        self.scopes = [{}]
        self.uneval = 0
        self.func = None
        self.lcb_names = []       # per function, emitted before it
        self.site = 0
        self.vglobals = []        # (vname, has_init) in layout order
        self.prev_end = "0u"
        self.pending = []         # text to emit before the current top-level item

    # scopes
    def lookup(self, name, node):
        for s in reversed(self.scopes):
            if name in s:
                return s[name]
        if name in self.t.enumerators:
            return Sym("const", INT)
        if name.startswith("__"):
            return Sym("const", INT)  # a compiler builtin constant (__INT_MAX__ ...)
        refuse(node, "unknown identifier '%s'" % name)

    def declare(self, name, sym):
        self.scopes[-1][name] = sym

    def sym_var(self, t):
        return Sym("var", t)

    def sym_vglobal(self, t, vname):
        return Sym("vglobal", t, vname)

    def sym_func(self, n):
        return Sym("func", n.type, external=n.name not in self.defined)

    def declare_params(self, fd):
        ft = fd.decl.type
        if ft.args:
            for p in ft.args.params:
                if isinstance(p, c_ast.Decl) and p.name:
                    pt = p.type
                    if isinstance(pt, c_ast.ArrayDecl):  # an array parameter is a pointer
                        pt = c_ast.PtrDecl([], pt.type)
                    self.declare(p.name, Sym("var", pt))

    # types of expressions
    def typeof(self, n):
        t = self.t
        if isinstance(n, c_ast.ID):
            return self.lookup(n.name, n).type
        if isinstance(n, c_ast.Constant):
            return CHARP if n.type == "string" else INT
        if isinstance(n, c_ast.ArrayRef):
            bt = self.typeof(n.name)
            if t.kind(bt) in ("array", "ptr"):
                return t.target(bt)
            return t.target(self.typeof(n.subscript))
        if isinstance(n, c_ast.StructRef):
            bt = self.typeof(n.name)
            if n.type == "->":
                bt = t.target(bt)
            return t.member(bt, n.field.name, n)
        if isinstance(n, c_ast.UnaryOp):
            if n.op == "*":
                ot = self.typeof(n.expr)
                if t.kind(ot) == "func":
                    return ot
                tt = t.target(ot)
                if tt is None:
                    refuse(n, "dereference of something that is not a pointer")
                return tt
            if n.op == "&":
                return c_ast.PtrDecl([], self.typeof(n.expr))
            if n.op in ("++", "--", "p++", "p--", "+", "-", "~"):
                return self.typeof(n.expr)
            return INT
        if isinstance(n, c_ast.Cast):
            return n.to_type.type
        if isinstance(n, c_ast.FuncCall):
            if isinstance(n.name, c_ast.ID) and n.name.name == "__vmcc_va_arg":
                return t.target(n.args.exprs[1].to_type.type)
            ft = self.typeof(n.name)
            if t.kind(ft) == "ptr":
                ft = t.target(ft)
            ft = t.resolve(ft)
            if not isinstance(ft, c_ast.FuncDecl):
                refuse(n, "call of something that is not a function")
            return ft.type
        if isinstance(n, c_ast.BinaryOp):
            if n.op in ("+", "-"):
                lk, rk = t.kind(self.typeof(n.left)), t.kind(self.typeof(n.right))
                if lk in ("ptr", "array") and rk in ("ptr", "array"):
                    return INT  # pointer difference
                if lk in ("ptr", "array"):
                    return c_ast.PtrDecl([], t.target(self.typeof(n.left)))
                if rk in ("ptr", "array"):
                    return c_ast.PtrDecl([], t.target(self.typeof(n.right)))
            if n.op in ("+", "-", "*", "/", "%", "&", "|", "^", "<<", ">>"):
                return self.typeof(n.left)
            return INT
        if isinstance(n, c_ast.TernaryOp):
            a = self.typeof(n.iftrue)
            return a if t.kind(a) != "scalar" else self.typeof(n.iffalse)
        if isinstance(n, c_ast.Assignment):
            return self.typeof(n.lvalue)
        if isinstance(n, c_ast.ExprList):
            return self.typeof(n.exprs[-1])
        if isinstance(n, c_ast.CompoundLiteral):
            return n.type.type
        refuse(n, "an expression vmcc cannot type (%s)" % type(n).__name__)

    # where an lvalue lives
    def lclass(self, n):
        if isinstance(n, c_ast.ID):
            s = self.lookup(n.name, n)
            return VIRT if s.kind == "vglobal" else PHYS
        if isinstance(n, c_ast.ArrayRef):
            if self.t.kind(self.typeof(n.name)) == "array":
                return self.lclass(n.name)
            if self.t.kind(self.typeof(n.subscript)) == "array":
                return self.lclass(n.subscript)
            return UNIV
        if isinstance(n, c_ast.StructRef):
            return UNIV if n.type == "->" else self.lclass(n.name)
        if isinstance(n, c_ast.UnaryOp) and n.op == "*":
            return UNIV
        return PHYS

    def base_name(self, n):
        """The lvalue base (one LCB each): the variable the address is derived from."""
        while True:
            if isinstance(n, c_ast.ID):
                return n.name
            if isinstance(n, c_ast.ArrayRef):
                k = self.t.kind(self.typeof(n.name))
                n = n.name if k in ("array", "ptr") else n.subscript
            elif isinstance(n, c_ast.StructRef):
                n = n.name
            elif isinstance(n, c_ast.UnaryOp) and n.op in ("*", "&", "p++", "p--", "++", "--"):
                n = n.expr
            elif isinstance(n, c_ast.Cast):
                n = n.expr
            elif isinstance(n, c_ast.BinaryOp) and n.op in ("+", "-"):
                lk = self.t.kind(self.typeof(n.left))
                n = n.left if lk in ("ptr", "array") else n.right
            elif isinstance(n, c_ast.Assignment):
                n = n.lvalue
            else:
                self.site += 1
                return "site%d" % self.site

    def lcb(self, n):
        if not self.lcbs:
            return "NULL"
        name = "vmcc_lcb_%s_%s" % (self.func or "file", self.base_name(n))
        if name not in self.lcb_names:
            self.lcb_names.append(name)
        return "&" + name

    # addresses: native pointer expressions whose value may be virtual; they access nothing but
    # the pointer variables they are computed from
    def addr(self, n):
        if isinstance(n, c_ast.ID):
            s = self.lookup(n.name, n)
            if s.kind == "vglobal":
                return "vmcc_p_%s" % s.vname
            return "(&%s)" % n.name
        if isinstance(n, c_ast.ArrayRef):
            if self.t.kind(self.typeof(n.name)) == "array":
                return "(&(*%s)[%s])" % (self.addr(n.name), self.visit(n.subscript))
            if self.t.kind(self.typeof(n.subscript)) == "array":
                return "(&(*%s)[%s])" % (self.addr(n.subscript), self.visit(n.name))
            if self.t.kind(self.typeof(n.name)) == "ptr":
                return "(%s + (%s))" % (self.rv(n.name), self.visit(n.subscript))
            return "(%s + (%s))" % (self.rv(n.subscript), self.visit(n.name))
        if isinstance(n, c_ast.StructRef):
            self.t.member(self.typeof(n.name) if n.type == "." else
                          self.t.target(self.typeof(n.name)), n.field.name, n)  # refuses bit-fields
            if n.type == ".":
                return "(&(*%s).%s)" % (self.addr(n.name), n.field.name)
            return "(&(%s)->%s)" % (self.rv(n.name), n.field.name)
        if isinstance(n, c_ast.UnaryOp) and n.op == "*":
            return "(%s)" % self.rv(n.expr)
        refuse(n, "taking the address of something that is not an lvalue")

    def rv(self, n):
        return self.visit(n)

    # the accesses: local images in GNU statement expressions
    def tmp(self):
        self.site += 1
        return "vmcc_a%d" % self.site, "vmcc_i%d" % self.site, "vmcc_o%d" % self.site

    def _access(self, verb, cls, lcb, a, i):
        """The runtime call moving image i to or from the address a (verb: read or write):
        strata_vm_read/write for a known-virtual lvalue, load/store for a universal one."""
        if cls == VIRT:
            fn, conv = "strata_vm_" + verb, "(strata_vaddr)(uintptr_t)"
        else:
            fn, conv = "strata_vm_" + ("load" if verb == "read" else "store"), \
                "(strata_vm_uptr)(uintptr_t)"
        return "%s(vmcc_vm, %s, %s%s, &%s, (uint32_t)sizeof %s);" % (fn, lcb, conv, a, i, i)

    def _load(self, cls, lcb, a, i):
        return self._access("read", cls, lcb, a, i)

    def _store(self, cls, lcb, a, i):
        return self._access("write", cls, lcb, a, i)

    def read(self, n):
        hit = self.sync_read(n)
        if hit is not None:
            return hit
        cls, lcb, ad = self.lclass(n), self.lcb(n), self.addr(n)
        a, i, _ = self.tmp()
        return ("({ __auto_type %s = %s; __typeof__(((void)0, *%s)) %s; %s %s; })"
                % (a, ad, a, i, self._load(cls, lcb, a, i), i))

    def write(self, n, op, value):
        """n op= value (op '=' for a plain assignment); the value of the expression is the
        image after the assignment."""
        promoted = self.promoted_write(n, op, value)
        if promoted is not None:
            return promoted
        cls, lcb, ad = self.lclass(n), self.lcb(n), self.addr(n)
        a, i, _ = self.tmp()
        if op == "=":
            body = "__typeof__(((void)0, *%s)) %s = (%s); " % (a, i, value)
        else:
            load = self.sync_rmw_load(n, i) or self._load(cls, lcb, a, i)
            body = "__typeof__(((void)0, *%s)) %s; %s %s %s= (%s); " % (a, i, load, i, op, value)
        return "({ __auto_type %s = %s; %s%s%s %s; })" % (
            a, ad, body, self._store(cls, lcb, a, i), self.sync_store_tail(n, i), i)

    def incdec(self, n, op):
        """++ and -- (prefix, or postfix as p++ / p--) on a virtual lvalue."""
        promoted = self.promoted_write(n, op, None)
        if promoted is not None:
            return promoted
        cls, lcb, ad = self.lclass(n), self.lcb(n), self.addr(n)
        a, i, o = self.tmp()
        step = "++" if op.endswith("++") else "--"
        load = self.sync_rmw_load(n, i) or self._load(cls, lcb, a, i)
        store = self._store(cls, lcb, a, i) + self.sync_store_tail(n, i)
        if op.startswith("p"):  # postfix: the value before
            return ("({ __auto_type %s = %s; __typeof__(((void)0, *%s)) %s, %s; %s %s = %s%s; %s %s; })"
                    % (a, ad, a, i, o, load, o, i, step, store, o))
        return ("({ __auto_type %s = %s; __typeof__(((void)0, *%s)) %s; %s %s%s; %s %s; })"
                % (a, ad, a, i, load, step, i, store, i))

    # expression visitors (rvalue context)
    def lvalue_rv(self, n, native):
        if self.uneval or self.lclass(n) == PHYS:
            return native()
        k = self.t.kind(self.typeof(n))
        if k == "array":
            return "(*%s)" % self.addr(n)
        if k == "func":
            return native()
        return self.read(n)

    def visit_ID(self, n):
        s = self.lookup(n.name, n)
        if s.kind == "vglobal":
            if self.uneval or self.t.kind(s.type) in ("array", "func"):
                return "(*vmcc_p_%s)" % s.vname
            return self.read(n)
        return n.name

    def visit_ArrayRef(self, n):
        return self.lvalue_rv(n, lambda: "%s[%s]" % (self._parenthesize_unless_simple(n.name),
                                                      self.visit(n.subscript)))

    def visit_StructRef(self, n):
        return self.lvalue_rv(n, lambda: self._parenthesize_unless_simple(n.name) + n.type +
                              n.field.name)

    def visit_UnaryOp(self, n):
        if n.op == "sizeof":
            self.uneval += 1
            try:
                return "sizeof(%s)" % self.visit(n.expr)
            finally:
                self.uneval -= 1
        if n.op == "*":
            return self.lvalue_rv(n, lambda: "*" + self._parenthesize_unless_simple(n.expr))
        if n.op == "&":
            if self.uneval or self.lclass(n.expr) == PHYS:
                return "&" + self._parenthesize_unless_simple(n.expr)
            return self.addr(n.expr)
        if n.op in ("++", "--", "p++", "p--") and not self.uneval and self.lclass(n.expr) != PHYS:
            return self.incdec(n.expr, n.op)
        return super().visit_UnaryOp(n)

    def visit_Assignment(self, n):
        if self.uneval or self.lclass(n.lvalue) == PHYS:
            return super().visit_Assignment(n)
        op = n.op[:-1] if n.op != "=" else "="
        return self.write(n.lvalue, op, self.visit(n.rvalue))

    def visit_FuncCall(self, n):
        if isinstance(n.name, c_ast.ID):
            name = n.name.name
            if name == "__vmcc_va_arg":
                ap = self.visit(n.args.exprs[0])
                return "va_arg(%s, %s)" % (ap, self._generate_type(
                    c_ast.Typename(None, [], None, self.t.target(n.args.exprs[1].to_type.type))))
            if name in VA_MACROS:
                return "%s(%s)" % (VA_MACROS[name], self.visit(n.args))
            s = self.lookup(name, n.name)
            if s.kind == "func":
                args = n.args.exprs if n.args else []
                ft = self.t.resolve(s.type)
                if name in WRAPPED:
                    return "vmcc_%s(%s)" % (name, ", ".join(self.visit(a) for a in args))
                if s.external and not self.uneval:
                    return "%s(%s)" % (name, ", ".join(self.ext_arg(name, ft, i, a)
                                                       for i, a in enumerate(args)))
        return super().visit_FuncCall(n)

    def ext_arg(self, fname, ft, i, a):
        """An argument to a function outside the virtualized code: a pointer must be physical
        (checked at run time), except the strings printf-like calls print (copied out)."""
        text = self.visit(a)
        if self.t.kind(self.typeof(a)) not in ("ptr", "array"):
            return text
        if isinstance(a, c_ast.Constant):
            return text  # a string literal is physical
        if fname in PRINTF_LIKE:
            tt = self.t.resolve(self.t.target(self.typeof(a)))
            if isinstance(tt, c_ast.TypeDecl) and isinstance(tt.type, c_ast.IdentifierType) \
                    and tt.type.names[-1] == "char" and not (fname != "printf" and i == 0):
                return "vmcc_cstr(%s)" % text
        return "vmcc_phys(%s, \"%s\")" % (text, where(a))

    # declarations and scopes
    def visit_FuncDef(self, n):
        if n.param_decls:
            refuse(n, "K&R-style parameter declarations")
        self.func = n.decl.name
        self.lcb_names = []
        decl = self.visit(n.decl)
        self.indent_level = 0
        self.scopes.append({})
        self.declare_params(n)
        self.func_state()
        self.in_body = True
        body = self.visit(n.body)
        self.in_body = False
        self.scopes.pop()
        body = self.image_decls(body)
        pre = "".join("static struct strata_vm_lcb %s;\n" % l for l in self.lcb_names)
        self.func = None
        return pre + decl + "\n" + body + "\n"

    def visit_Compound(self, n):
        self.scopes.append({})
        try:
            return super().visit_Compound(n)
        finally:
            self.leave_scope(set(self.scopes.pop()))

    def visit_For(self, n):
        self.scopes.append({})
        try:
            return self.sync_for(n) if self.sync_on() else super().visit_For(n)
        finally:
            self.leave_scope(set(self.scopes.pop()))

    def visit_Decl(self, n, no_type=False):
        if getattr(self, "in_body", False) and n.name and not isinstance(n.type, c_ast.FuncDecl):
            if "static" in n.storage and not self.is_physical(n):
                vname = "%s__%s" % (self.func, n.name)
                self.pending_static(n, vname)
                self.declare(n.name, Sym("vglobal", n.type, vname))
                return "/* static %s: in the virtual space as %s */" % (n.name, vname)
            if "extern" in n.storage:
                return super().visit_Decl(n, no_type)
            self.declare(n.name, Sym("var", n.type))
        elif getattr(self, "in_body", False) and isinstance(n.type, c_ast.FuncDecl) and n.name:
            self.declare(n.name, Sym("func", n.type, external=n.name not in self.defined))
        return super().visit_Decl(n, no_type)

    def is_physical(self, n):
        if n.name in self.physical:
            return True
        t = n.type
        while isinstance(t, c_ast.ArrayDecl):
            t = t.type
        return "const" in getattr(t, "quals", [])  # read-only data stays in ROM

    # the object relocator: each virtual global at the next aligned offset of the space
    def relocate(self, n, vname):
        """Text placing global n (renamed vname) in the virtual space; its initial value becomes
        a physical constant copied in by vmcc_space_init()."""
        out = []
        size_of = None
        self.hoist_struct(n, vname, out)
        if n.init is not None:
            d = copy.deepcopy(n)
            d.name = "vmcc_init_" + vname
            t = d.type
            while not isinstance(t, c_ast.TypeDecl):
                t = t.type
            t.declname = d.name
            e = d.type
            while isinstance(e, c_ast.ArrayDecl):
                e = e.type
            if "const" not in e.quals:
                e.quals = ["const"] + list(e.quals)
            d.storage = ["static"]
            d.funcspec = []
            out.append(super().visit_Decl(d) + ";")
            size_of = "sizeof(vmcc_init_%s)" % vname
        ty = strip_name(n.type)
        if isinstance(ty, c_ast.ArrayDecl) and ty.dim is None:
            if n.init is None:
                refuse(n, "global array '%s' without a size" % n.name)
            ty.dim = c_ast.Constant("int", "(sizeof vmcc_init_%s / sizeof vmcc_init_%s[0])" % (vname, vname))
        tn = self._generate_type(c_ast.Typename(None, [], None, ty))
        ptr = self._generate_type(c_ast.Typename(None, [], None, c_ast.PtrDecl([], ty)))
        if size_of is None:
            size_of = "sizeof(%s)" % tn
        out.append("#define vmcc_off_%s VMCC_ALIGN_UP(%s, __alignof__(%s))" % (vname, self.prev_end, tn))
        out.append("#define vmcc_end_%s (vmcc_off_%s + (uint32_t)%s)" % (vname, vname, size_of))
        out.append("#define vmcc_p_%s ((%s)(uintptr_t)(VMCC_BASE + vmcc_off_%s))" % (vname, ptr, vname))
        self.prev_end = "vmcc_end_%s" % vname
        self.vglobals.append((vname, n.init is not None))
        self.vinfo[vname] = (n.name, n.type)
        return "\n".join(out) + "\n"

    def hoist_struct(self, n, vname, out):
        """A struct or union defined in the global's own declaration is emitted on its own
        (named if anonymous), so the relocator's casts can name its type."""
        t = n.type
        while not isinstance(t, c_ast.TypeDecl):
            t = t.type
        su = t.type
        if isinstance(su, (c_ast.Struct, c_ast.Union)) and su.decls is not None:
            if su.name is None:
                su.name = "vmcc_anon_" + vname
            out.append(self.visit(copy.deepcopy(su)) + ";")
            self.t.tags[(type(su).__name__, su.name)] = copy.deepcopy(su)
            su.decls = None

    def pending_static(self, n, vname):
        self.pending.append(self.relocate(n, vname))

    def rename_main(self, fd):
        """main becomes vmcc_main(int, char **), which the harness calls."""
        fd = copy.deepcopy(fd)
        fd.decl.name = "vmcc_main"
        t = fd.decl.type.type
        while not isinstance(t, c_ast.TypeDecl):
            t = t.type
        t.declname = "vmcc_main"
        ps = fd.decl.type.args.params if fd.decl.type.args else []
        if len(ps) == 0 or (len(ps) == 1 and isinstance(ps[0], c_ast.Typename)):
            parser = c_parser.CParser()
            proto = parser.parse("int f(int vmcc_argc, char **vmcc_argv);").ext[0]
            fd.decl.type.args = proto.type.args
            fd.body.block_items = (parser.parse(
                "void g(int vmcc_argc, char **vmcc_argv) { (void)vmcc_argc; (void)vmcc_argv; }"
            ).ext[0].body.block_items or []) + (fd.body.block_items or [])
        return fd

    def generate(self, ast, defined):
        self.defined = defined
        self.in_body = False
        out = []
        for ext in ast.ext:
            user = ext.coord is None or os.path.abspath(ext.coord.file) in self.user_files
            if isinstance(ext, c_ast.Pragma):
                continue
            if isinstance(ext, c_ast.Decl) and ext.name and not isinstance(ext.type, c_ast.FuncDecl) \
                    and "typedef" not in ext.storage:
                if not user or "extern" in ext.storage:
                    if ext.name not in self.scopes[0]:
                        self.declare(ext.name, Sym("var", ext.type))
                    if user:
                        out.append(self.visit(ext) + ";\n")
                    continue
                if self.is_physical(ext):
                    self.declare(ext.name, Sym("var", ext.type))
                    out.append(self.visit(ext) + ";\n")
                    continue
                out.append(self.relocate(ext, ext.name))
                self.declare(ext.name, Sym("vglobal", ext.type, ext.name))
                continue
            if isinstance(ext, c_ast.Decl) and isinstance(ext.type, c_ast.FuncDecl):
                nm = ext.name
                if nm not in self.scopes[0] or self.scopes[0][nm].kind != "func":
                    self.declare(nm, Sym("func", ext.type, external=nm not in defined))
                if user and nm != "main":
                    out.append(self.visit(ext) + ";\n")
                continue
            if isinstance(ext, c_ast.FuncDef):
                nm = ext.decl.name
                self.declare(nm, Sym("func", ext.decl.type, external=False))
                if nm == "main":
                    ext = self.rename_main(ext)
                self.pending = []
                body = self.visit(ext)
                out.extend(self.pending)
                out.append(body)
                continue
            if user:
                out.append(self.visit(ext) + ";\n")
        # vmcc_space_init: the initial values in, the rest zero (unless the backing reads zeros)
        init = ["uint32_t vmcc_space_size(void) { return (uint32_t)(%s); }" % self.prev_end,
                "void vmcc_space_init(int zero)", "{"]
        init.append("    if (zero) (void)strata_vm_fill(vmcc_vm, VMCC_BASE, 0, vmcc_space_size());")
        for vname, has_init in self.vglobals:
            if has_init:
                init.append("    (void)strata_vm_copy_in(vmcc_vm, (strata_vaddr)(uintptr_t)vmcc_p_%s, "
                            "&vmcc_init_%s, (uint32_t)sizeof vmcc_init_%s);" % (vname, vname, vname))
        init.append("}")
        return "".join(out) + "\n".join(init) + "\n"


def system_includes(path):
    """The #include <...> lines of the user's file: the output includes the real headers."""
    out = []
    with open(path) as f:
        for line in f:
            m = re.match(r"\s*#\s*include\s*<([^>]+)>", line)
            if m:
                out.append("#include <%s>\n" % m.group(1))
    return out


def pragmas_physical(ast):
    names = []
    for ext in ast.ext:
        if isinstance(ext, c_ast.Pragma):
            m = re.match(r"\s*strata_vmcc\s+physical\s*\(([^)]*)\)", ext.string)
            if m:
                names += [x.strip() for x in m.group(1).split(",") if x.strip()]
    return names


def virtualize(src, physical=(), lcbs=True, cpp="cpp", defines=(), sync=True):
    src = os.path.abspath(src)
    cmd = [cpp, "-undef", "-nostdinc", "-isystem", FAKE_INCLUDE] + ["-D" + d for d in defines] + [src]
    text = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    try:
        ast = c_parser.CParser().parse(text, filename=src)
    except Exception as e:  # pycparser's ParseError carries the location
        raise VmccError("%s: vmcc cannot parse: %s" % (src, e))
    types = Types()
    types.learn(ast)
    user_files = {src}
    for ext in ast.ext:
        if ext.coord is not None and not os.path.abspath(ext.coord.file).startswith(FAKE_INCLUDE):
            user_files.add(os.path.abspath(ext.coord.file))
    defined = {e.decl.name for e in ast.ext if isinstance(e, c_ast.FuncDef)}
    rw = Rewriter(types, user_files, list(physical) + pragmas_physical(ast), lcbs)
    if sync:
        funcdefs = {e.decl.name: e for e in ast.ext if isinstance(e, c_ast.FuncDef)}
        rw.sync = vsync.Sync(rw, funcdefs, vsync.address_taken_names(ast), VmccError)
    body = rw.generate(ast, defined)
    head = ["/* Generated by strata-vmcc from %s: do not edit. */\n" % os.path.basename(src)]
    head += system_includes(src)
    head += ["#include <stdint.h>\n", "#include \"vmcc_rt.h\"\n"]
    return "".join(head) + body


def main():
    ap = argparse.ArgumentParser(description="strata-vmcc: C-to-C virtualizer for strata_vm")
    ap.add_argument("source")
    ap.add_argument("-o", "--output", required=True)
    ap.add_argument("--physical", default="", help="comma-separated globals kept in RAM")
    ap.add_argument("--no-lcb", action="store_true", help="no last-cache buffers (NULL)")
    ap.add_argument("--no-sync", action="store_true",
                    help="no synchronisation analysis: every access synchronises (section 3)")
    ap.add_argument("-D", dest="defines", action="append", default=[])
    a = ap.parse_args()
    try:
        out = virtualize(a.source, [x for x in a.physical.split(",") if x], not a.no_lcb,
                         defines=a.defines, sync=not a.no_sync)
    except VmccError as e:
        print(str(e), file=sys.stderr)
        return 1
    except subprocess.CalledProcessError as e:
        print(e.stderr, file=sys.stderr)
        return 1
    if a.output == "-":
        sys.stdout.write(out)
    else:
        with open(a.output, "w") as f:
            f.write(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
