#!/usr/bin/env python3
"""The docs checked offline, from the repository alone (no network, no build). Run from anywhere:

    python3 scripts/check-docs.py            # exits 1 and lists every problem, file:line first

The docs: README.md, CONTRIBUTING.md, ARCHITECTURE.md, docs/*.md and reference/*.md. Each fails on

- a relative link (`[text](path)`, `[text](path#anchor)`, `[text](#anchor)`) whose file is not
  in the repository, or whose anchor is no heading of that file (GitHub's anchors: lower case,
  punctuation dropped, spaces as hyphens, `-1`, `-2` ... for repeats);
- a citation of a file that is not in the repository: a path under one of the repository's
  folders (`reference/x.md`, `crates/y/src/z.rs:12`, `shared/...`), an upper-case document name
  (`ARCHITECTURE.md`, `STYLE.md`), or a section of one (`ARCHITECTURE §6`);
- a path of a developer's machine (`/work/...`, `/home/NAME/...`, `/Users/...`); a CI runner's
  `/home/runner/...` is an example a user meets, and passes;
- a bare "issue N" (or "issues N and M"): the project's issue numbers are not something a
  reader can follow, so a doc says what the change was instead. A link to a public issue
  (`[issue 12](https://...)`) passes.

Links and citations inside fenced code blocks and `code spans` are read too (a path in a code
span is still a citation), except that links are only links outside code.
"""
import os
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent

# The folders a doc cites files under; `shared/` is a folder outside the repository that docs
# once cited (the design documents and fixtures of the project's own workspace).
CITED_FOLDERS = (
    "reference", "crates", "scripts", "skill", "agents", "hooks", "src", "tests", "e2e",
    "bench", "test-support", "examples", "docs", ".github", ".ci", ".claude-plugin", "shared",
)
LINK = re.compile(r"(?<!!)\[([^\]]*)\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
FENCE = re.compile(r"^\s*(```|~~~)")
PATH_WORD = re.compile(r"(?<![\w./-])((?:%s)/[\w./@+-]*)" % "|".join(re.escape(f) for f in CITED_FOLDERS))
CAPS_DOC = re.compile(r"(?<![\w/.-])([A-Z][A-Z0-9_-]+\.md)\b")
SECTION_CITE = re.compile(r"\b([A-Z][A-Z0-9_]{3,})(?:\.md)?(?:'s)? §")
# The project's design documents, kept outside the repository, by the names docs cited them with.
OUTSIDE_DESIGN = re.compile(r"\b(ARCHITECTURE|STYLE)\b(?!\.md)")
MACHINE_PATH = re.compile(r"(?<![\w.])(/work/|/home/(?!runner/)[\w.-]+/|/Users/[\w.-]+/|[A-Z]:\\Users\\)")
ISSUE = re.compile(r"\b[Ii]ssues? #?\d+")
PUBLIC_ISSUE_LINK = re.compile(r"\[[^\]]*\b[Ii]ssues? #?\d+[^\]]*\]\(https?://[^)]+\)")
PLACEHOLDER = re.compile(r"[<>*{}$…]|\.\.\.|\bN\b|XX")


def docs():
    found = [ROOT / name for name in ("README.md", "CONTRIBUTING.md", "ARCHITECTURE.md")]
    for folder in ("docs", "reference"):
        found += sorted((ROOT / folder).glob("*.md"))
    return [p for p in found if p.is_file()]


def rel(path):
    return str(path.relative_to(ROOT))


def slug(heading):
    """GitHub's anchor for a heading's text."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link's text only
    text = text.strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


_anchors = {}


def anchors(path):
    if path not in _anchors:
        seen = {}
        result = set()
        in_fence = False
        for line in path.read_text(encoding="utf-8").splitlines():
            if FENCE.match(line):
                in_fence = not in_fence
                continue
            match = None if in_fence else HEADING.match(line)
            if match:
                base = slug(match.group(2))
                count = seen.get(base, 0)
                seen[base] = count + 1
                result.add(base if count == 0 else f"{base}-{count}")
            for name in re.findall(r'<a (?:name|id)="([^"]+)"', line):
                result.add(name)
        _anchors[path] = result
    return _anchors[path]


def outside_code(line):
    """The line with its code spans blanked (so links in them are not links)."""
    return re.sub(r"`[^`]*`", lambda m: " " * len(m.group(0)), line)


def check_link(doc, target):
    if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # https:, mailto:, ...
        return None
    path_part, _, anchor = target.partition("#")
    path = (doc.parent / path_part).resolve() if path_part else doc
    try:
        path.relative_to(ROOT)
    except ValueError:
        return f"link `{target}` leaves the repository"
    if not path.exists():
        return f"link `{target}`: no file {path_part}"
    if anchor and path.suffix == ".md" and anchor not in anchors(path):
        return f"link `{target}`: no heading #{anchor} in {rel(path)}"
    return None


def is_file_citation(word):
    """A word naming a file (with an extension) or a folder (`.../`), not a template
    (`<name>`, `*`, `...`), a rate (`agents/min`) or an example project's source (`x.py`)."""
    if PLACEHOLDER.search(word):
        return False
    name = word.rstrip("/").rsplit("/", 1)[-1]
    extension = pathlib.PurePath(name).suffix
    return word.endswith("/") or (extension not in ("", ".py") and not name.endswith("-"))


def cited_exists(doc, word):
    """From the repository's root or the doc's folder (as `tests/cli/doc_references.rs` reads it:
    `hooks/stop.rs` names the plugin's folder `hooks/`, so a crate's file is cited in full)."""
    return (ROOT / word).exists() or (doc.parent / word).exists()


SKIPPED_FOLDERS = {".git", "target", ".cache", "node_modules"}


def repo_basenames():
    """The names of the repository's markdown files (build output and tool caches left out)."""
    names = set()
    for folder, subfolders, files in os.walk(ROOT):
        subfolders[:] = [d for d in subfolders if d not in SKIPPED_FOLDERS]
        names.update(f for f in files if f.endswith(".md"))
    return names


def check(doc, caps_names):
    problems = []
    in_fence = False
    for number, line in enumerate(doc.read_text(encoding="utf-8").splitlines(), 1):
        where = f"{rel(doc)}:{number}"
        fence = FENCE.match(line)
        if fence:
            in_fence = not in_fence
        if not in_fence and not fence:
            for _, target in LINK.findall(outside_code(line)):
                problem = check_link(doc, target)
                if problem:
                    problems.append(f"{where}: {problem}")
        for word in PATH_WORD.findall(line):
            cited = word.split(":")[0].split("#")[0].rstrip(".,;")
            if not is_file_citation(cited) and not cited.startswith("shared/"):
                continue
            if not cited_exists(doc, cited):
                problems.append(f"{where}: cites `{cited}`, which is not in the repository")
        for name in CAPS_DOC.findall(line):
            if name not in caps_names:
                problems.append(f"{where}: cites `{name}`, which is not in the repository")
        for name in SECTION_CITE.findall(line):
            if f"{name}.md" not in caps_names:
                problems.append(f"{where}: cites a section of `{name}`, which is not in the repository")
        for name in OUTSIDE_DESIGN.findall(line):
            if f"{name}.md" not in caps_names:
                problems.append(f"{where}: cites `{name}`, a document not in the repository")
        for path in MACHINE_PATH.findall(line):
            problems.append(f"{where}: a machine's path (`{path}...`)")
        public = PUBLIC_ISSUE_LINK.sub("", line)
        for issue in ISSUE.findall(public):
            problems.append(f"{where}: bare \"{issue}\": say what the change was instead")
    return list(dict.fromkeys(p for p in problems if not redundant(p, problems)))


def redundant(problem, problems):
    """"cites `ARCHITECTURE`" beside "cites a section of `ARCHITECTURE`" on the same line."""
    where, _, text = problem.partition(": ")
    return "a document not in" in text and any(
        p.startswith(where + ": cites a section of") for p in problems)


def main():
    caps_names = {n for n in repo_basenames() if CAPS_DOC.fullmatch(n)}
    checked = docs()
    problems = [p for doc in checked for p in check(doc, caps_names)]
    for problem in problems:
        print(problem)
    print(f"check-docs: {len(checked)} docs, {len(problems)} problem(s)", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
