#!/usr/bin/env python3
"""Reports import cycles between the modules of src/ (no dependencies; python3 only).

    python3 scripts/module_cycles.py [--edges] [SRC_DIR]

An edge A -> B means: code in file A names an item defined in file B, through a `use` of a
`crate::`, `super::`, `self::` or child-module path, or such a path written in the code
(`crate::tensor::calc_size_bits(..)`). Paths through a re-export (`pub use`, or a plain `use`
that another module reaches with `super::Name`) are followed to the file that defines the
item, so `use crate::tensor::Layout` is an edge to src/tensor/layout.rs. A re-export alone is
not an edge: a mod.rs that re-exports its children does not depend on them unless its own
code uses what it re-exports. Comments (doc links included) and string literals are ignored.

Two reports:
- file cycles: files that import from each other, directly or around a loop;
- module cycles: for each module with children (the crate root, src/op/, ...), its children
  (each with everything under it) that import from each other, e.g. `op` and `device`, or a
  mod.rs and one of its children.

Exit status 1 when there is a cycle, 0 otherwise. `--edges` also lists every edge.
Not handled: `#[path]` attributes and macro-generated modules (the crate uses neither).
"""

import os
import re
import sys

IDENT = r"[A-Za-z_][A-Za-z0-9_]*"


def strip_code(text):
    """The text with comments and string/char literals blanked out (newlines kept)."""
    out = []
    i, n = 0, len(text)

    def blank(s):
        return "".join("\n" if c == "\n" else " " for c in s)

    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(blank(text[i:j]))
            i = j
        elif text.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if text.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif text.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            out.append(blank(text[i:j]))
            i = j
        elif re.match(r'b?r#*"', text[i:i + 8]) and (i == 0 or not re.match(r"\w", text[i - 1])):
            m = re.match(r'b?r(#*)"', text[i:])
            end = text.find('"' + m.group(1), i + m.end())
            j = n if end < 0 else end + 1 + len(m.group(1))
            out.append(blank(text[i:j]))
            i = j
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append(blank(text[i:j + 1]))
            i = j + 1
        elif c == "'":
            # A char literal ('x', '\n', '\u{1F}') or a lifetime ('a): only the first is blanked.
            m = re.match(r"'(\\u\{[0-9A-Fa-f]+\}|\\.|[^\\'])'", text[i:])
            if m:
                out.append(blank(m.group(0)))
                i += m.end()
            else:
                out.append(c)
                i += 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def parse_use_tree(s):
    """`a::{b, c::d as e, f::*}` -> [(segments, alias, glob)]."""
    tokens = re.findall(IDENT + r"|::|[{},*]", s)
    pos = 0

    def tree(prefix):
        nonlocal pos
        segs = list(prefix)
        while pos < len(tokens):
            t = tokens[pos]
            if t == "::":
                pos += 1
            elif t == "{":
                pos += 1
                items = []
                while pos < len(tokens) and tokens[pos] != "}":
                    if tokens[pos] == ",":
                        pos += 1
                        continue
                    items += tree(segs)
                pos += 1
                return items
            elif t == "*":
                pos += 1
                return [(segs, None, True)]
            elif t in (",", "}"):
                break
            elif t == "as":
                alias = tokens[pos + 1]
                pos += 2
                return [(segs, alias, False)]
            else:
                segs.append(t)
                pos += 1
        if segs and segs[-1] == "self":
            segs = segs[:-1]
        return [(segs, None, False)]

    return tree([])


class File:
    def __init__(self, path, module):
        self.path = path
        self.module = module  # tuple of names; () for the crate root
        self.uses = []  # (scope, segments, alias, glob, reexport, line, text)
        self.paths = []  # (scope, segments, line, text): paths written in the code
        self.children = {}  # scope -> set of child module names declared there
        self.scopes = {module}  # this file's module and its inline modules
        self.words = set()  # identifiers in the code outside `use` declarations
        self.defined = set()  # names of the items the file defines


def file_module(src, path):
    rel = os.path.relpath(path, src)[:-3].split(os.sep)
    if rel in (["lib"], ["main"]):
        return ()
    if rel[-1] == "mod":
        rel = rel[:-1]
    return tuple(rel)


USE = re.compile(r"(?:\bpub\s*(?:\([^)]*\))?\s*)?\buse\s+([^;]*);")
MOD = re.compile(r"\bmod\s+(" + IDENT + r")\s*([;{])")
DEFINE = re.compile(
    r"\b(?:fn|struct|enum|const|static|type|trait|union|mod)\s+(" + IDENT + r")|macro_rules!\s*(" + IDENT + r")"
)
PATH = re.compile(r"(?<![\w$:])((?:crate|super|self|" + IDENT + r")(?:::" + IDENT + r")+)")


def parse(f, text):
    code = strip_code(text)
    line_of = [0]
    for i, c in enumerate(code):
        if c == "\n":
            line_of.append(i + 1)

    def line(pos):
        lo, hi = 0, len(line_of) - 1
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if line_of[mid] <= pos:
                lo = mid
            else:
                hi = mid - 1
        return lo + 1

    # Inline module scopes: (start, end, module path).
    scopes = []
    stack = []  # (brace depth at which the module's body closes, module path)
    depth = 0
    pending = None
    mods = {m.start(): m for m in MOD.finditer(code)}
    scope_at = []  # (position, module path) whenever the scope changes
    current = f.module
    scope_at.append((0, current))
    i = 0
    while i < len(code):
        if i in mods:
            m = mods[i]
            f.children.setdefault(current, set()).add(m.group(1))
            if m.group(2) == "{":
                pending = current + (m.group(1),)
            i = m.end() - 1
            if m.group(2) == ";":
                i += 1
                continue
        c = code[i]
        if c == "{":
            depth += 1
            if pending is not None:
                stack.append((depth, current))
                current = pending
                f.scopes.add(current)
                scope_at.append((i, current))
                pending = None
        elif c == "}":
            if stack and stack[-1][0] == depth:
                current = stack.pop()[1]
                scope_at.append((i, current))
            depth -= 1
        i += 1

    def scope(pos):
        s = f.module
        for p, m in scope_at:
            if p > pos:
                break
            s = m
        return s

    use_spans = []
    for m in USE.finditer(code):
        use_spans.append((m.start(), m.end()))
        reexport = m.group(0).lstrip().startswith("pub")
        text_ = " ".join(m.group(0).split())
        for segs, alias, glob in parse_use_tree(m.group(1)):
            f.uses.append((scope(m.start()), segs, alias, glob, reexport, line(m.start()), text_))
    in_use = lambda pos: any(a <= pos < b for a, b in use_spans)
    for m in re.finditer(IDENT, code):
        if not in_use(m.start()):
            f.words.add(m.group(0))
    for m in DEFINE.finditer(code):
        f.defined.add(m.group(1) or m.group(2))
    for m in PATH.finditer(code):
        if in_use(m.start()):
            continue
        segs = m.group(1).split("::")
        f.paths.append((scope(m.start()), segs, line(m.start()), m.group(1)))


class Crate:
    def __init__(self, src):
        self.src = src
        self.files = {}  # path -> File
        self.by_module = {}  # module path (file or inline) -> File
        for root, _, names in os.walk(src):
            for name in sorted(names):
                if name.endswith(".rs"):
                    path = os.path.join(root, name)
                    f = File(path, file_module(src, path))
                    with open(path, encoding="utf-8") as fh:
                        parse(f, fh.read())
                    self.files[path] = f
        for f in self.files.values():
            for s in f.scopes:
                self.by_module[s] = f

    def absolute(self, scope, segs):
        """Splits a path written in `scope` into (module path, rest); None when external."""
        if not segs:
            return None
        first = segs[0]
        if first == "crate":
            mod, rest = (), segs[1:]
        elif first in ("super", "self"):
            mod, rest = scope, segs
            while rest and rest[0] in ("super", "self"):
                if rest[0] == "super":
                    if not mod:
                        return None
                    mod = mod[:-1]
                rest = rest[1:]
        elif first in self.by_module[scope].children.get(scope, ()):
            mod, rest = scope, segs
        else:
            return None  # another crate, a local item, or a name imported under another name
        while rest and mod + (rest[0],) in self.by_module:
            mod, rest = mod + (rest[0],), rest[1:]
        return mod, rest

    def target(self, scope, segs, seen=None):
        """The file defining what `segs` (written in `scope`) names; None when external."""
        a = self.absolute(scope, segs)
        if a is None:
            return None
        mod, rest = a
        f = self.by_module[mod]
        if not rest:
            return f
        name = rest[0]
        seen = seen or set()
        if (mod, name) in seen:
            return f
        seen.add((mod, name))
        # A name the module imports (a re-export, or a private `use` reached by a child):
        # follow it to where it is defined.
        for s, usegs, alias, glob, _, _, _ in f.uses:
            if s == mod and not glob and usegs and (alias or usegs[-1]) == name:
                t = self.target(mod, usegs, seen)
                if t is not None:
                    return t
        return f

    def edges(self):
        """[(from path, to path, line, text)], without self-edges."""
        out = []
        for f in self.files.values():
            for scope, segs, alias, glob, reexport, line, text in f.uses:
                t = self.target(scope, segs)
                if reexport and t is not None:
                    used = (t.defined & f.words) if glob else {alias or segs[-1]} & f.words
                    if not used:
                        continue  # a re-export only
                if t is not None and t is not f:
                    out.append((f.path, t.path, line, text))
            for scope, segs, line, text in f.paths:
                t = self.target(scope, segs)
                if t is not None and t is not f:
                    out.append((f.path, t.path, line, text))
        return sorted(set(out))


def cycles(nodes, edges):
    """Strongly connected components with more than one node (Tarjan)."""
    graph = {n: set() for n in nodes}
    for a, b in edges:
        graph[a].add(b)
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def main(argv):
    show_edges = "--edges" in argv
    args = [a for a in argv if not a.startswith("--")]
    here = os.path.dirname(os.path.abspath(__file__))
    src = args[0] if args else os.path.join(os.path.dirname(here), "src")
    crate = Crate(src)
    edges = crate.edges()
    rel = lambda p: os.path.relpath(p, os.path.dirname(os.path.abspath(src)))
    name = lambda m: "::".join(("crate",) + m)
    pairs = {(a, b) for a, b, _, _ in edges}
    print(f"module_cycles: {len(crate.files)} files, {len(pairs)} file-to-file imports ({rel(src)}/)")
    if show_edges:
        for a, b, line, text in sorted(edges):
            print(f"  {rel(a)}:{line} -> {rel(b)}  {text}")

    found = 0
    for comp in cycles(crate.files, pairs):
        found += 1
        print("file cycle: " + ", ".join(rel(p) for p in comp))
        for a, b, line, text in sorted(edges):
            if a in comp and b in comp:
                print(f"  {rel(a)}:{line} -> {rel(b)}  {text}")

    parents = sorted({f.module[:k] for f in crate.files.values() for k in range(len(f.module))})
    for parent in parents:
        def node(path):
            m = crate.files[path].module
            if m[:len(parent)] != parent:
                return None
            return m[len(parent)] if len(m) > len(parent) else "(itself)"
        medges = {}
        for a, b, line, text in edges:
            na, nb = node(a), node(b)
            if na is not None and nb is not None and na != nb:
                medges.setdefault((na, nb), []).append((a, line, b, text))
        nodes = {n for e in medges for n in e}
        for comp in cycles(nodes, medges):
            found += 1
            print(f"module cycle in {name(parent)}: " + ", ".join(comp))
            for (na, nb), why in sorted(medges.items()):
                if na in comp and nb in comp:
                    for a, line, b, text in sorted(why):
                        print(f"  {na} -> {nb}: {rel(a)}:{line} -> {rel(b)}  {text}")
    print("no cycles" if not found else f"{found} cycle(s)")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
