#!/usr/bin/env python3
"""Lists the Rust functions under the given directories (default src/) longer
than a limit (default 150 lines, counted from the `fn` line to its closing
brace), longest first, and exits 1 if there is one.

    scripts/long-functions.py [--max N] [--all] [DIR ...]

A small lexer, not a Rust parser: it skips comments, strings (raw ones too)
and char literals so that their braces do not count, which is all that
finding a body's end needs.
"""
import os
import re
import sys


def code_only(text):
    """The text with comments, strings and char literals blanked (newlines kept)."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
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
            out.append("".join(ch if ch == "\n" else " " for ch in text[i:j]))
            i = j
        elif re.match(r'b?r#*"', text[i:i + 40]) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            m = re.match(r'b?r(#*)"', text[i:])
            end = '"' + m.group(1)
            j = text.find(end, i + m.end())
            j = n if j < 0 else j + len(end)
            out.append("".join(ch if ch == "\n" else " " for ch in text[i:j]))
            i = j
        elif c == '"' or text.startswith('b"', i) and (i == 0 or not text[i - 1].isalnum()):
            j = i + (2 if c == "b" else 1)
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append("".join(ch if ch == "\n" else " " for ch in text[i:j + 1]))
            i = j + 1
        elif c == "'":
            m = re.match(r"'(\\(x..|u\{[0-9a-fA-F]+\}|.)|[^\\'])'", text[i:])
            if m:
                out.append(" " * m.end())
                i += m.end()
            else:
                out.append(c)
                i += 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


FN = re.compile(r"\bfn\s+([A-Za-z_][A-Za-z0-9_]*)")


def functions(path):
    code = code_only(open(path, encoding="utf-8").read())
    for m in FN.finditer(code):
        j = m.end()
        # The body is the first `{` before any `;` (a declaration has none).
        while j < len(code) and code[j] not in "{;":
            j += 1
        if j >= len(code) or code[j] == ";":
            continue
        depth, k = 0, j
        while k < len(code):
            if code[k] == "{":
                depth += 1
            elif code[k] == "}":
                depth -= 1
                if depth == 0:
                    break
            k += 1
        first = code.count("\n", 0, m.start()) + 1
        last = code.count("\n", 0, k) + 1
        yield m.group(1), first, last - first + 1


def main(argv):
    limit, show_all, dirs = 150, False, []
    args = iter(argv)
    for a in args:
        if a == "--max":
            limit = int(next(args))
        elif a == "--all":
            show_all = True
        else:
            dirs.append(a)
    found = []
    for d in dirs or ["src"]:
        for root, _, files in os.walk(d):
            for f in sorted(files):
                if f.endswith(".rs"):
                    p = os.path.join(root, f)
                    found += [(lines, p, line, name) for name, line, lines in functions(p)]
    found.sort(reverse=True)
    over = [f for f in found if f[0] > limit]
    for lines, p, line, name in found if show_all else over:
        print(f"{lines:5} {p}:{line} {name}")
    if over:
        print(f"{len(over)} function(s) over {limit} lines", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
