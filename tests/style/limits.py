#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""The size limits the project keeps (doc/guide: no function over 80 lines, no
file over 800), measured in the C sources and headers of daemon/ and tools/.

Usage: limits.py SRCROOT [DIR...]      (DIRs relative to SRCROOT; default
                                        daemon tools)

How it counts:
  - a file's length is its number of lines (a last line without a newline
    counts too);
  - a function's length runs from the line that holds its name to the line
    of its closing brace, both included: a definition whose return type sits
    on the line above its name does not pay for it, and neither does the
    comment above the function;
  - a function definition is a '{' at file scope (brace depth 0) whose
    previous token is ')' (the end of its parameter list, or of an
    __attribute__ after it); its name is the identifier before the first
    '(' of that declaration that is not an attribute keyword. Any other '{'
    at file scope opens a struct, union, enum or initialiser and is not
    measured.
  - The scanner reads C tokens, not lines: comments, string and character
    literals (with their escapes) and preprocessor directives (with their
    backslash continuations) are skipped, so a brace inside any of them
    counts for nothing. Braces must balance in every file; a file where they
    do not (e.g. an #if whose branches each open a brace) is reported as an
    error rather than measured wrongly.
Prints one line per excess, "PATH:LINE: NAME is N lines (limit 80)" or
"PATH: N lines (limit 800)", and exits 1 if there is any; otherwise prints a
summary (count and longest) and exits 0.
"""
import os
import re
import sys

FUNC_LIMIT = 80
FILE_LIMIT = 800
ATTRIBUTE_WORDS = {"__attribute__", "__attribute", "__declspec", "_Alignas",
                   "alignas", "__asm__", "asm", "__asm"}
IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class ScanError(Exception):
    pass


def tokens(text):
    """(kind, value, line) for the C tokens that matter here: identifiers and
    punctuation, with comments, literals and directives skipped."""
    i, n, line = 0, len(text), 1
    at_line_start = True
    while i < n:
        c = text[i]
        if c == "\n":
            line += 1
            i += 1
            at_line_start = True
            continue
        if c in " \t\r\f\v":
            i += 1
            continue
        if c == "\\" and text.startswith("\n", i + 1):
            line += 1
            i += 2
            continue
        if text.startswith("/*", i):
            end = text.find("*/", i + 2)
            if end < 0:
                raise ScanError(f"line {line}: unterminated comment")
            line += text.count("\n", i, end)
            i = end + 2
            continue
        if text.startswith("//", i):
            while i < n and text[i] != "\n":
                # a line comment continues over a backslash-newline
                if text[i] == "\\" and text.startswith("\n", i + 1):
                    line += 1
                    i += 1
                i += 1
            continue
        if c == "#" and at_line_start:
            # a directive runs to the first newline not escaped by a
            # backslash; comments inside it may span lines
            while i < n and text[i] != "\n":
                if text[i] == "\\" and text.startswith("\n", i + 1):
                    line += 1
                    i += 2
                    continue
                if text.startswith("/*", i):
                    end = text.find("*/", i + 2)
                    if end < 0:
                        raise ScanError(f"line {line}: unterminated comment")
                    line += text.count("\n", i, end)
                    i = end + 2
                    continue
                if text.startswith("//", i):
                    while i < n and text[i] != "\n":
                        i += 1
                    break
                if text[i] in "\"'":
                    i, line = skip_literal(text, i, line)
                    continue
                i += 1
            continue
        at_line_start = False
        if c in "\"'":
            i, line = skip_literal(text, i, line)
            yield ("lit", c, line)
            continue
        m = IDENT.match(text, i)
        if m:
            # a prefixed literal (L"", u8"", U'') is one token
            if m.end() < n and text[m.end()] in "\"'" and m.group() in ("L", "u", "U", "u8"):
                i, line = skip_literal(text, m.end(), line)
                yield ("lit", '"', line)
                continue
            yield ("id", m.group(), line)
            i = m.end()
            continue
        yield ("punct", c, line)
        i += 1


def skip_literal(text, i, line):
    quote = text[i]
    i += 1
    while i < len(text):
        c = text[i]
        if c == "\\":
            if text.startswith("\n", i + 1):
                line += 1
            i += 2
            continue
        if c == quote:
            return i + 1, line
        if c == "\n":
            raise ScanError(f"line {line}: newline inside a {quote}-literal")
        i += 1
    raise ScanError(f"line {line}: unterminated {quote}-literal")


def function_name(decl):
    """The name in a declaration's tokens: the identifier before its first
    '(' at paren depth 0, skipping attribute groups."""
    depth = 0
    skip_group = False
    for k, (kind, val, _) in enumerate(decl):
        if val == "(" and kind == "punct":
            if depth == 0:
                prev = decl[k - 1] if k else None
                if prev and prev[0] == "id" and prev[1] not in ATTRIBUTE_WORDS and not skip_group:
                    return prev[1], prev[2]
                skip_group = False
            depth += 1
        elif val == ")" and kind == "punct":
            depth -= 1
    return None, None


def measure(text):
    """([(name, first line, last line)], number of lines) of one C file."""
    funcs = []
    depth = 0
    decl = []          # tokens at depth 0 since the last ';', '}' or '{'
    paren = 0
    current = None     # (name, line) of the function being read
    for tok in tokens(text):
        kind, val, line = tok
        if kind == "punct" and val in "()":
            paren += 1 if val == "(" else -1
        if kind == "punct" and val == "{":
            if depth == 0:
                if decl and decl[-1][1] == ")" and paren == 0:
                    name, name_line = function_name(decl)
                    if name is None:
                        raise ScanError(f"line {line}: a function body without a name")
                    current = (name, name_line)
                else:
                    current = None
                decl = []
            depth += 1
            continue
        if kind == "punct" and val == "}":
            depth -= 1
            if depth < 0:
                raise ScanError(f"line {line}: '}}' without its '{{'")
            if depth == 0:
                if current:
                    funcs.append((current[0], current[1], line))
                current = None
                decl = []
            continue
        if depth == 0:
            if kind == "punct" and val == ";":
                decl = []
            else:
                decl.append(tok)
    if depth != 0:
        raise ScanError(f"{depth} '{{' never closed")
    lines = text.count("\n") + (0 if text.endswith("\n") or not text else 1)
    return funcs, lines


def sources(root, dirs):
    for top in dirs:
        for dirpath, subdirs, names in os.walk(os.path.join(root, top)):
            subdirs.sort()
            for n in sorted(names):
                if n.endswith((".c", ".h")):
                    yield os.path.relpath(os.path.join(dirpath, n), root)


def main(argv):
    if len(argv) < 2:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    root = argv[1]
    dirs = argv[2:] or ["daemon", "tools"]
    bad = []
    nfiles = nfuncs = 0
    longest_func = (0, "")
    longest_file = (0, "")
    for path in sources(root, dirs):
        with open(os.path.join(root, path), encoding="utf-8") as f:
            text = f.read()
        try:
            funcs, lines = measure(text)
        except ScanError as e:
            bad.append(f"{path}: cannot measure: {e}")
            continue
        nfiles += 1
        if lines > FILE_LIMIT:
            bad.append(f"{path}: {lines} lines (limit {FILE_LIMIT})")
        longest_file = max(longest_file, (lines, path))
        for name, first, last in funcs:
            nfuncs += 1
            length = last - first + 1
            if length > FUNC_LIMIT:
                bad.append(f"{path}:{first}: {name} is {length} lines (limit {FUNC_LIMIT})")
            longest_func = max(longest_func, (length, f"{path}:{first}: {name}"))
    if nfiles == 0:
        bad.append(f"no C file under {', '.join(dirs)} in {root}")
    for b in bad:
        print(b)
    if bad:
        print(f"{len(bad)} over the limits (functions {FUNC_LIMIT} lines, files {FILE_LIMIT})")
        return 1
    print(f"{nfiles} files, {nfuncs} functions within the limits; longest function "
          f"{longest_func[1]} ({longest_func[0]} lines), longest file {longest_file[1]} "
          f"({longest_file[0]} lines)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
