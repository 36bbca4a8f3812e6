#!/usr/bin/env bash
# Shape figures of the library's source (src/), tests excluded:
#   - functions over 80 lines (and over 150), counted by brace matching from the line of `fn`
#     to the line of its closing brace, nested functions counted on their own too;
#   - file parts over 1,000 lines: each file's lines less its test items;
#   - `Result<_, String>` in function signatures.
#
# Usage: scripts/code-metrics.sh [SRC_DIR] [--list]
#   --list prints every function over 80 lines and every file part over 1,000 lines.
#
# What counts as test code: any item under `#[cfg(test)]` (a `mod tests { … }` block, a test
# helper), and the files of modules declared `#[cfg(test)] mod NAME;` (e.g. `tests.rs`).
# The lexer skips comments, strings, raw strings, byte strings and char literals, so braces in
# them do not count; it is a line counter, not a Rust parser: a `fn` inside a macro body counts
# as a function like any other.
set -euo pipefail
src=src
list=0
for a in "$@"; do
    case "$a" in
        --list) list=1 ;;
        *) src="$a" ;;
    esac
done
exec python3 - "$src" "$list" <<'PY'
import os
import re
import sys

SRC, LIST = sys.argv[1], sys.argv[2] == "1"


def blank(text):
    """The text with comments, strings and char literals replaced by spaces (newlines kept)."""
    out = list(text)
    i, n = 0, len(text)

    def wipe(a, b):
        for k in range(a, b):
            if out[k] != "\n":
                out[k] = " "

    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            wipe(i, j)
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
            wipe(i, j)
            i = j
        else:
            m = re.compile(r'b?r(#*)"').match(text, i)
            if m and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
                end = text.find('"' + m.group(1), m.end())
                j = n if end < 0 else end + 1 + len(m.group(1))
                wipe(i, j)
                i = j
            elif c == '"' or (c == "b" and text.startswith('b"', i)
                              and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_"))):
                j = i + (2 if c == "b" else 1)
                while j < n and text[j] != '"':
                    j += 2 if text[j] == "\\" else 1
                wipe(i, j + 1)
                i = j + 1
            elif c == "'":
                m = re.compile(r"'(\\(x[0-9a-fA-F]{2}|u\{[0-9a-fA-F]+\}|.)|[^\\'\n])'").match(text, i)
                if m:
                    wipe(i, m.end())
                    i = m.end()
                else:
                    i += 1  # a lifetime
            else:
                i += 1
    return "".join(out)


def match_brace(code, open_at):
    depth = 0
    for j in range(open_at, len(code)):
        if code[j] == "{":
            depth += 1
        elif code[j] == "}":
            depth -= 1
            if depth == 0:
                return j
    return len(code) - 1


CFG_TEST = re.compile(r"#\[cfg\(test\)\]")


def test_spans(code):
    """(start, end) offsets of the items under #[cfg(test)], and names of test-only modules."""
    spans, modules = [], []
    for m in CFG_TEST.finditer(code):
        j = m.end()
        # The item: up to its first `;` (a declaration) or its `{ … }` body.
        semi, brace = code.find(";", j), code.find("{", j)
        if semi >= 0 and (brace < 0 or semi < brace):
            decl = code[j:semi]
            mm = re.search(r"\bmod\s+(\w+)\s*$", decl)
            if mm:
                modules.append(mm.group(1))
            spans.append((m.start(), semi + 1))
        elif brace >= 0:
            spans.append((m.start(), match_brace(code, brace) + 1))
    return spans, modules


def lines_in(code, a, b):
    return code.count("\n", a, b)


def test_files():
    """Files of modules declared `#[cfg(test)] mod NAME;`."""
    out = set()
    for root, _, files in os.walk(SRC):
        for f in files:
            if not f.endswith(".rs"):
                continue
            p = os.path.join(root, f)
            code = blank(open(p, encoding="utf-8").read())
            _, mods = test_spans(code)
            here = root if f in ("mod.rs", "lib.rs", "main.rs") else os.path.join(root, f[:-3])
            for name in mods:
                for cand in (os.path.join(here, name + ".rs"), os.path.join(here, name, "mod.rs")):
                    if os.path.exists(cand):
                        out.add(os.path.normpath(cand))
                d = os.path.join(here, name)
                if os.path.isdir(d):
                    for r2, _, fs in os.walk(d):
                        out.update(os.path.normpath(os.path.join(r2, x)) for x in fs if x.endswith(".rs"))
    return out


FN = re.compile(r"\bfn\s+([A-Za-z_][A-Za-z0-9_]*)")


def main():
    skip = test_files()
    fns, parts, string_results = [], [], []
    for root, _, files in os.walk(SRC):
        for f in sorted(files):
            p = os.path.normpath(os.path.join(root, f))
            if not f.endswith(".rs") or p in skip:
                continue
            code = blank(open(p, encoding="utf-8").read())
            spans, _ = test_spans(code)
            in_test = lambda k: any(a <= k < b for a, b in spans)
            total = code.count("\n") + (0 if code.endswith("\n") else 1)
            test_lines = sum(lines_in(code, a, b) + 1 for a, b in spans)
            parts.append((total - test_lines, p))
            for m in FN.finditer(code):
                if in_test(m.start()):
                    continue
                semi, brace = code.find(";", m.end()), code.find("{", m.end())
                if brace < 0 or (0 <= semi < brace):
                    sig = code[m.start():semi]
                    body = None
                else:
                    sig = code[m.start():brace]
                    body = brace
                if re.search(r"Result<[^{};]*,\s*String\s*>", re.sub(r"\s+", " ", sig)):
                    string_results.append((p, lines_in(code, 0, m.start()) + 1, m.group(1)))
                if body is None:
                    continue
                close = match_brace(code, body)
                n = lines_in(code, m.start(), close) + 1
                fns.append((n, p, lines_in(code, 0, m.start()) + 1, m.group(1)))
    over80 = sorted((x for x in fns if x[0] > 80), reverse=True)
    over150 = [x for x in over80 if x[0] > 150]
    big = sorted((x for x in parts if x[0] > 1000), reverse=True)
    print(f"functions (non-test):             {len(fns)}")
    print(f"functions over 80 lines:          {len(over80)}")
    print(f"functions over 150 lines:         {len(over150)}")
    print(f"file parts over 1,000 lines:      {len(big)}")
    print(f"Result<_, String> signatures:     {len(string_results)} in "
          f"{len({p for p, _, _ in string_results})} files")
    if LIST:
        print("\nfunctions over 80 lines:")
        for n, p, line, name in over80:
            print(f"  {n:4}  {p}:{line}  {name}")
        print("\nfile parts over 1,000 lines (non-test lines):")
        for n, p in big:
            print(f"  {n:5}  {p}")
        print("\nResult<_, String> signatures:")
        for p, line, name in string_results:
            print(f"  {p}:{line}  {name}")


main()
PY
