#!/usr/bin/env python3
"""The layout figures of issues 25 and 33, from the source alone (no build): lines of `src/`,
the longest functions of `src/` and `crates/app`, the file-level import cycles of every product
crate, the imports from one command module into another and from `run/`, `hooks/`, `prompts/` up
into `commands/`, and the run-kind branches left (`is_repair_run`). Run from the repo root:

    python3 scripts/layout-figures.py          # prints the figures as a table, then the details
    python3 scripts/layout-figures.py --check  # and exits 1 when one is over its target

`--check` fails on a function over 80 lines in `src/` or `crates/app`, a file cycle in
`crates/app`, or a command module imported from outside its own folder (only `src/`, another
crate, `commands/mod.rs`, which declares them, and the compositions of whole commands in
`COMPOSITIONS` may).

How imports are read (test code excluded: `#[cfg(test)]` items and the files they declare,
`*_tests.rs`, `test_support.rs`): comments and string and char literals are blanked; every
`use` tree is expanded (`{...}` groups, `self`, `as`, `*`), and so is every path in the code that
starts at `crate::`, `super::`, `self::`, a child module or a name a `use` brought in. A path is
followed module by module to the file of its last module; a name in it is followed to the file
that defines it (`fn`, `struct`, `enum`, `const`, `static`, `trait`, `type`, `mod`, a macro),
through `use` re-exports and glob re-exports. One file importing another is one edge; cycles are
the strongly connected sets of more than one file (Tarjan).
"""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
FN = re.compile(r"^(\s*)(?:pub(?:\([a-z]+\))? )?(?:const )?(?:async )?(?:unsafe )?fn (\w+)")
MAX_FN_LINES = 80
# The imports of one command by another that run the whole command, as a user would (issue 33:
# "only compositions of whole commands"): `demo` starts a run, shows each item and submits the
# simulated agent's answer; `drive --partitions` starts the shares and merges them. Nothing else
# may import a command module from outside its folder.
COMPOSITIONS = {
    ("demo", "start"),
    ("demo", "show"),
    ("demo", "submit"),
    ("drive", "start"),
    ("drive", "merge"),
}
SRC_LINES = 400
COMMAND_IMPORTS_GOAL = 8
APP = "crates/app/src"
COMMANDS = APP + "/commands"
LOWER_FLOORS = ("run", "hooks", "prompts")
DEFINITION = re.compile(
    r"\b(?:fn|struct|enum|const|static|trait|type|union|mod)\s+(\w+)|\bmacro_rules!\s*(\w+)"
)
USE = re.compile(r"(?<![\w:])use\s+([^;]+);")
CHILD_MOD = re.compile(r"(?<![\w:])mod\s+(\w+)\s*;")
PATH = re.compile(r"(?<![\w:])((?:\w+\s*::\s*)+(?:\w+|\*))")


def rust_files(folder):
    return sorted(p for p in (ROOT / folder).rglob("*.rs") if "target" not in p.parts)


def rel(path):
    return str(path.relative_to(ROOT))


# ---------------------------------------------------------------- reading Rust text


def blank(text):
    """`text` with comments and the insides of string and char literals replaced by spaces
    (newlines kept, so line numbers hold)."""
    out = list(text)
    n = len(text)
    i = 0

    def wipe(start, end):
        for k in range(start, min(end, n)):
            if out[k] != "\n":
                out[k] = " "

    while i < n:
        c = text[i]
        if text.startswith("//", i):
            end = text.find("\n", i)
            end = n if end < 0 else end
            wipe(i, end)
            i = end
        elif text.startswith("/*", i):
            depth, k = 1, i + 2
            while k < n and depth:
                if text.startswith("/*", k):
                    depth, k = depth + 1, k + 2
                elif text.startswith("*/", k):
                    depth, k = depth - 1, k + 2
                else:
                    k += 1
            wipe(i, k)
            i = k
        elif c == "r" and re.match(r'r#*"', text[i:i + 260]) and not (i and (text[i - 1].isalnum() or text[i - 1] == "_")):
            hashes = re.match(r'r(#*)"', text[i:]).group(1)
            start = i + 2 + len(hashes)
            end = text.find('"' + hashes, start)
            end = n if end < 0 else end
            wipe(start, end)
            i = end + 1 + len(hashes)
        elif c == '"':
            k = i + 1
            while k < n and text[k] != '"':
                k += 2 if text[k] == "\\" else 1
            wipe(i + 1, k)
            i = k + 1
        elif c == "'":
            if i + 1 < n and text[i + 1] == "\\":
                k = text.find("'", i + 3)
                k = n if k < 0 else k
                wipe(i + 1, k)
                i = k + 1
            elif i + 2 < n and text[i + 2] == "'":
                wipe(i + 1, i + 2)
                i += 3
            else:
                i += 1  # a lifetime
        else:
            i += 1
    return "".join(out)


def matching_brace(text, at):
    """Index just past the `}` that closes the `{` at `at`."""
    depth = 0
    for k in range(at, len(text)):
        if text[k] == "{":
            depth += 1
        elif text[k] == "}":
            depth -= 1
            if depth == 0:
                return k + 1
    return len(text)


def strip_test_items(text):
    """`text` (already blanked) without its `#[cfg(test)]` items; the test modules it declares
    as files."""
    out = list(text)
    test_mods = set()
    for m in re.finditer(r"#\s*\[\s*cfg\s*\(\s*test\s*\)\s*\]", text):
        k = m.end()
        # Skip further attributes.
        while True:
            rest = re.match(r"\s*#\s*\[", text[k:])
            if not rest:
                break
            depth, j = 0, k + rest.end() - 1
            while j < len(text):
                if text[j] == "[":
                    depth += 1
                elif text[j] == "]":
                    depth -= 1
                    if depth == 0:
                        break
                j += 1
            k = j + 1
        semi = text.find(";", k)
        brace = text.find("{", k)
        decl = re.match(r"\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+(\w+)\s*;", text[k:])
        if decl:
            test_mods.add(decl.group(1))
        if brace < 0 or (0 <= semi < brace):
            end = semi + 1
        else:
            end = matching_brace(text, brace)
        for j in range(m.start(), end):
            if out[j] != "\n":
                out[j] = " "
    return "".join(out), test_mods


def parse_use_tree(text):
    """The paths of one `use` tree: (segments, alias, glob) each."""
    tokens = re.findall(r"\w+|::|[{},*]", text)
    pos = [0]

    def peek():
        return tokens[pos[0]] if pos[0] < len(tokens) else None

    def take():
        pos[0] += 1
        return tokens[pos[0] - 1]

    def tree(prefix):
        segs = list(prefix)
        if peek() == "::":  # a leading `::`
            take()
        while True:
            tok = peek()
            if tok == "{":
                take()
                found = []
                while peek() not in (None, "}"):
                    found += tree(segs)
                    if peek() == ",":
                        take()
                if peek() == "}":
                    take()
                return found
            if tok == "*":
                take()
                return [(segs, None, True)]
            if tok is None or tok in (",", "}"):
                return []
            take()
            if not (tok == "self" and prefix and len(segs) == len(prefix)):
                segs.append(tok)  # `a::{self}` names `a` itself
            if peek() == "::":
                take()
                continue
            alias = segs[-1]
            if peek() == "as":
                take()
                alias = take()
            return [(segs, alias, False)]

    found = []
    while peek() is not None:
        found += tree([])
        if peek() is not None:
            take()
    return found


# ---------------------------------------------------------------- one crate


class Crate:
    def __init__(self, src):
        self.src = src
        self.modules = {}  # module tuple -> file
        self.defs = {}  # file -> names defined there
        self.names = {}  # file -> {name: (context module, segments)} brought in by `use`
        self.globs = {}  # file -> [(context module, segments)] of `use ...::*`
        self.texts = {}  # file -> product text (blanked, tests stripped)
        self.uses = {}  # file -> [(context module, segments, glob)]
        self.module_of = {}
        tests = set()
        has_lib = (ROOT / src / "lib.rs").exists()
        for path in rust_files(src):
            if path.relative_to(ROOT / src).parts[0] == "bin" or (has_lib and rel(path) == f"{src}/main.rs"):
                continue  # a binary beside a library is a crate of its own, one file that uses it
            parts = list(path.relative_to(ROOT / src).with_suffix("").parts)
            if parts[-1] in ("mod", "lib", "main") and (parts[-1] == "mod" or len(parts) == 1):
                parts = parts[:-1]
            module = tuple(parts)
            text, test_mods = strip_test_items(blank(path.read_text()))
            folder = path.parent if path.name in ("mod.rs", "lib.rs", "main.rs") else path.with_suffix("")
            for name in test_mods:
                tests.update({folder / f"{name}.rs", folder / name / "mod.rs"})
            self.modules[module] = path
            self.module_of[path] = module
            self.texts[path] = text
        for path in list(self.modules.values()):
            if path in tests or path.name.endswith("_tests.rs") or path.name == "test_support.rs":
                del self.modules[self.module_of.pop(path)]
                del self.texts[path]
        for path, text in self.texts.items():
            module = self.module_of[path]
            self.defs[path] = {a or b for a, b in DEFINITION.findall(text)}
            self.names[path], self.globs[path], self.uses[path] = {}, [], []
            for m in USE.finditer(text):
                for segs, alias, glob in parse_use_tree(m.group(1)):
                    start = self.context(module, segs, path)
                    if start is None:
                        continue
                    ctx, rest = start
                    self.uses[path].append((ctx, rest, glob))
                    if glob:
                        self.globs[path].append((ctx, rest))
                    elif alias:
                        self.names[path][alias] = (ctx, rest)
            # The `use` statements are read: blank them for the path scan below.
            self.texts[path] = USE.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)

    def children(self, module):
        return {m[-1] for m in self.modules if len(m) == len(module) + 1 and m[:-1] == module}

    def context(self, module, segs, path):
        """Where a path starts: (module to look its first segment up in, the segments left);
        `None` for a path into another crate or the standard library."""
        if not segs:
            return None
        head = segs[0]
        if head == "crate":
            return (), segs[1:]
        if head in ("self", "super"):
            ctx, rest = module, list(segs)
            while rest and rest[0] in ("self", "super"):
                if rest.pop(0) == "super":
                    ctx = ctx[:-1]
            return ctx, rest
        if head in self.children(module):
            return module, segs
        names = self.names.get(path, {})
        if head in names:
            ctx, base = names[head]
            return ctx, base + segs[1:]
        if head in self.defs.get(path, ()) and module + (head,) not in self.modules:
            return None  # an item of this file (`Type::method`)
        return None

    def resolve(self, ctx, segs, depth=0):
        """The file a path leads to, from module `ctx`: (file, found), `found` False when a name
        was not found where it was looked up (then its module's file)."""
        module = ctx
        for i, seg in enumerate(segs):
            child = module + (seg,)
            if child in self.modules:
                module = child
                continue
            return self.resolve_name(module, seg, depth)
        file = self.modules.get(module)
        return file, file is not None

    def resolve_name(self, module, name, depth):
        file = self.modules.get(module)
        if file is None or depth > 25:
            return file, False
        if name in self.defs[file]:
            return file, True
        if name in self.names[file]:
            ctx, segs = self.names[file][name]
            if segs:
                return self.resolve(ctx, segs, depth + 1)
        for ctx, segs in self.globs[file]:
            target_module = self.module_path(ctx, segs)
            if target_module is not None:
                found_file, found = self.resolve_name(target_module, name, depth + 1)
                if found:
                    return found_file, True
        return file, False

    def module_path(self, ctx, segs):
        module = ctx
        for seg in segs:
            module = module + (seg,)
            if module not in self.modules:
                return None
        return module

    def edges(self):
        """file -> files it imports."""
        graph = {path: set() for path in self.texts}
        for path, text in self.texts.items():
            module = self.module_of[path]
            targets = []
            for ctx, segs, glob in self.uses[path]:
                if glob:
                    target_module = self.module_path(ctx, segs)
                    targets.append(self.modules.get(target_module) if target_module is not None else None)
                else:
                    targets.append(self.resolve(ctx, segs)[0])
            for m in PATH.finditer(text):
                segs = [s.strip() for s in m.group(1).split("::")]
                if segs[-1] == "*":
                    segs = segs[:-1]
                start = self.context(module, segs, path)
                if start is None:
                    continue
                targets.append(self.resolve(*start)[0])
            graph[path].update(t for t in targets if t is not None and t != path)
        return graph


def strongly_connected(graph):
    index, low, stack, on, comps, counter = {}, {}, [], set(), [], [0]

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
                comps.append(sorted(rel(p) for p in comp))

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return comps


# ---------------------------------------------------------------- the figures


def longest_functions(folder, count=3):
    found = []
    for path in rust_files(folder):
        text, _ = strip_test_items(blank(path.read_text()))
        lines = text.split("\n")
        for at, line in enumerate(lines):
            m = FN.match(line)
            if not m or line.rstrip().endswith(";"):
                continue
            closing = m.group(1) + "}"
            for end in range(at + 1, len(lines)):
                if lines[end].rstrip() == closing:
                    found.append((end - at + 1, f"{rel(path)}:{at + 1} {m.group(2)}"))
                    break
    return sorted(found, reverse=True)[:count]


def command_of(path):
    """The command module a file of `crates/app/src/commands` belongs to (`fix` for
    `commands/fix/queue_drive.rs`); `None` for `commands/mod.rs` and files outside."""
    parts = pathlib.Path(rel(path)).parts
    base = pathlib.Path(COMMANDS).parts
    if parts[: len(base)] != base or len(parts) == len(base) + 1 and parts[-1] == "mod.rs":
        return None
    return pathlib.Path(parts[len(base)]).stem


def floor_of(path):
    parts = pathlib.Path(rel(path)).parts
    base = pathlib.Path(APP).parts
    return parts[len(base)] if parts[: len(base)] == base and len(parts) > len(base) + 1 else None


def product_crates():
    crates = [("self-repair (src/)", "src")]
    for folder in sorted((ROOT / "crates").iterdir()):
        if (folder / "src").is_dir():
            crates.append((folder.name, rel(folder / "src")))
    return crates


TEST_CRATES = [("mock-api", "e2e/mock-api/src"), ("bench-support", "bench/bench-support/src"),
               ("test-support", "test-support/src")]


def cycles_of(crates):
    """crate name -> its cycles, for the crates that have any; and crate name -> its graph."""
    cycles, graphs = {}, {}
    for name, src in crates:
        if not (ROOT / src).is_dir():
            continue
        graphs[name] = Crate(src).edges()
        found = strongly_connected(graphs[name])
        if found:
            cycles[name] = found
    return cycles, graphs


def main():
    check = "--check" in sys.argv
    src_lines = sum(len(p.read_text().split("\n")) - 1 for p in rust_files("src"))
    longest_src = longest_functions("src")
    longest_app = longest_functions(APP)
    cycles, graphs = cycles_of(product_crates())
    test_cycles, _ = cycles_of(TEST_CRATES)
    app_graph = graphs["app"]
    app_cycles = cycles.get("app", [])
    command_imports, upward, outside = [], [], []
    for source, targets in sorted(app_graph.items()):
        for target in sorted(targets):
            into = command_of(target)
            if into is None:
                continue
            frm = command_of(source)
            if frm == into:
                continue
            pair = (rel(source), rel(target))
            if frm is not None:
                command_imports.append(pair)
            elif floor_of(source) in LOWER_FLOORS:
                upward.append(pair)
            if rel(source) != COMMANDS + "/mod.rs" and (frm, into) not in COMPOSITIONS:
                outside.append(pair)
    repair_branches = sum(
        p.read_text().count("is_repair_run") for folder in ("src", "crates") for p in rust_files(folder)
    )
    over_src = [f for f in longest_src if f[0] > MAX_FN_LINES]
    over_app = [f for f in longest_app if f[0] > MAX_FN_LINES]

    def where(found):
        return f"{found[0][0]} ({found[0][1]})" if found else "-"

    rows = [
        ("lines of src/", str(src_lines), f"<= {SRC_LINES}", src_lines <= SRC_LINES),
        ("longest function of src/", where(longest_src), f"<= {MAX_FN_LINES}", not over_src),
        ("longest function of crates/app", where(longest_app), f"<= {MAX_FN_LINES}", not over_app),
        ("file cycles in crates/app", str(len(app_cycles)), "0", not app_cycles),
        (
            "file cycles in the product crates",
            f"{sum(map(len, cycles.values()))} in {len(cycles)} crates",
            "(figure)",
            None,
        ),
        (
            "file cycles in the test infrastructure",
            f"{sum(map(len, test_cycles.values()))} in {len(test_cycles)} crates",
            "(figure)",
            None,
        ),
        ("command -> command imports", str(len(command_imports)), f"<= {COMMAND_IMPORTS_GOAL} (goal)", None),
        ("upward imports (run/, hooks/, prompts/ -> commands/)", str(len(upward)), "0", None),
        ("command modules imported from outside their folder", str(len(outside)), "0", not outside),
        ("`is_repair_run` in src/ and crates/", str(repair_branches), "0", repair_branches == 0),
    ]
    widths = [max(len(r[i]) for r in rows) for i in range(3)]
    print(f"| {'figure':<{widths[0]}} | {'today':<{widths[1]}} | {'target':<{widths[2]}} | check |")
    print(f"|{'-' * (widths[0] + 2)}|{'-' * (widths[1] + 2)}|{'-' * (widths[2] + 2)}|-------|")
    for label, today, target, ok in rows:
        mark = "" if ok is None else ("ok" if ok else "OVER")
        print(f"| {label:<{widths[0]}} | {today:<{widths[1]}} | {target:<{widths[2]}} | {mark:<5} |")
    print()
    for label, longest in (("src/", longest_src), ("crates/app", longest_app)):
        print(f"longest functions of {label}:")
        for lines, at in longest:
            print(f"  {lines:4} lines  {at}")
    print("file cycles (strongly connected sets of files):")
    for name, found in {**cycles, **test_cycles}.items():
        for comp in found:
            print(f"  {name}: " + " <-> ".join(comp))
    print("command -> command imports:")
    for source, target in command_imports:
        print(f"  {source} -> {target}")
    print("upward imports:")
    for source, target in upward:
        print(f"  {source} -> {target}")
    if check:
        failed = bool(over_src or over_app or app_cycles or outside)
        print("--check: " + ("FAILED" if failed else "ok"))
        sys.exit(1 if failed else 0)


main()
