#!/usr/bin/env python3
"""The layout figures of issue 25, from the source alone (no build): lines of `src/`, the longest
function of `src/` and of `crates/app`, files of `crates/app` that import each other in a
cycle, and the run-kind branches left (`is_repair_run`). Run from the repo root:

    python3 scripts/layout-figures.py          # prints the figures
    python3 scripts/layout-figures.py --check  # exits 1 when one is over its target
"""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
FN = re.compile(r"^(\s*)(?:pub(?:\([a-z]+\))? )?(?:const )?(?:async )?fn (\w+)")
TARGETS = {"src_lines": 400, "longest_fn": 80, "cycles": 0}


def rust_files(folder):
    return sorted(p for p in (ROOT / folder).rglob("*.rs") if "target" not in p.parts)


def longest_functions(folder, count=3):
    found = []
    for path in rust_files(folder):
        lines = path.read_text().split("\n")
        for at, line in enumerate(lines):
            m = FN.match(line)
            if not m or line.rstrip().endswith(";"):
                continue
            closing = m.group(1) + "}"
            for end in range(at + 1, len(lines)):
                if lines[end].rstrip() == closing:
                    found.append((end - at + 1, f"{path.relative_to(ROOT)}:{at + 1} {m.group(2)}"))
                    break
    return sorted(found, reverse=True)[:count]


def module_files(src):
    """Module path (`commands::fix`) -> file, for every file of a crate's src folder."""
    modules = {}
    for path in rust_files(src):
        parts = list(path.relative_to(ROOT / src).with_suffix("").parts)
        if parts[-1] in ("mod", "lib"):
            parts = parts[:-1]
        modules["::".join(parts)] = path
    return modules


def import_cycles(src):
    modules = module_files(src)
    edges = {path: set() for path in modules.values()}
    for name, path in modules.items():
        text = path.read_text()
        text = text.split("#[cfg(test)]")[0]
        for ref in re.findall(r"crate::((?:\w+::)*\w+)", text):
            parts = ref.split("::")
            for n in range(len(parts), 0, -1):
                target = modules.get("::".join(parts[:n]))
                if target is not None:
                    if target != path and "::".join(parts[:n]) != "":
                        edges[path].add(target)
                    break
    # Tarjan's strongly connected components.
    index, low, stack, on, comps, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges[v]:
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
                comps.append(sorted(str(p.relative_to(ROOT)) for p in comp))

    sys.setrecursionlimit(10000)
    for v in edges:
        if v not in index:
            visit(v)
    return comps


def main():
    src_lines = sum(len(p.read_text().split("\n")) - 1 for p in rust_files("src"))
    longest_src = longest_functions("src")
    longest_app = longest_functions("crates/app/src")
    cycles = import_cycles("crates/app/src")
    repair_branches = sum(
        p.read_text().count("is_repair_run")
        for folder in ("src", "crates")
        for p in rust_files(folder)
    )
    print(f"lines of src/: {src_lines} (target <= {TARGETS['src_lines']})")
    for label, longest in (("src/", longest_src), ("crates/app", longest_app)):
        print(f"longest functions of {label}:")
        for lines, where in longest:
            print(f"  {lines:4} lines  {where}")
    print(f"files of crates/app importing each other in a cycle: {len(cycles)}")
    for comp in cycles:
        print("  " + " <-> ".join(comp))
    print(f"`is_repair_run` occurrences in src/ and crates/: {repair_branches}")
    if "--check" in sys.argv:
        over = (
            src_lines > TARGETS["src_lines"]
            or max(longest_src[0][0], longest_app[0][0]) > TARGETS["longest_fn"]
            or len(cycles) > TARGETS["cycles"]
        )
        sys.exit(1 if over else 0)


main()
