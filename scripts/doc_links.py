#!/usr/bin/env python3
"""Checks that every relative link of the documentation leads somewhere (run by
scripts/check_readme.sh, and on its own):

    python3 scripts/doc_links.py [<source dir>]

The pages checked are README.md, CHANGELOG.md, python/README.md, benches/README.md and
docs/*.md. For each Markdown link or image `[text](target)` and each reference definition
`[name]: target` outside code blocks and inline code:

- a target with a scheme (https:, mailto:, ...) is not checked;
- the path part must name a file or directory of the source tree (relative to the page; an
  empty path is the page itself);
- a `#anchor` must be the anchor of a heading of that page when it is a Markdown file, by
  GitHub's rules: the heading's text in lowercase, punctuation other than `-` and `_` dropped,
  each space turned into `-`, and `-1`, `-2`, ... added to repeated anchors. An anchor into
  any other kind of file cannot be checked and fails.

Every path in inline code outside code blocks (`src/op/plan.rs`, `scripts/check_fuzz.sh . build`:
each word that starts with one of the source tree's top-level folders) must name a file or
directory, relative to the top of the source tree or to the page; a word with a `*` must match
one at least; a word holding a placeholder (`<`, `{`, `$`, `...`) is not checked.

Every broken link or missing path is printed as `FILE:LINE: broken link TARGET: why` or
`FILE:LINE: no such path PATH`, and the exit status is 1 when there is one.
"""

import glob
import os
import re
import sys

FENCE = re.compile(r"^\s*(```|~~~)")
HEADING = re.compile(r"^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
CODE_SPAN = re.compile(r"(`+)(.+?)\1")
COMMENT = re.compile(r"<!--.*?-->")
# [text](target) or ![alt](target), with an optional "title"; text may hold one level of [].
INLINE = re.compile(r"!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*<?([^\s)>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
REFERENCE = re.compile(r"^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$")
SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


def pages(src):
    top = ["README.md", "CHANGELOG.md", "CONTRIBUTING.md", "SECURITY.md", os.path.join("python", "README.md"),
           os.path.join("benches", "README.md")]
    found = [os.path.join(src, p) for p in top]
    found += sorted(glob.glob(os.path.join(src, "docs", "*.md")))
    return [p for p in found if os.path.isfile(p)]


def prose_lines(path):
    """(line number, text) of the lines outside fenced code blocks."""
    fenced = False
    for number, line in enumerate(open(path, encoding="utf-8").read().split("\n"), 1):
        if FENCE.match(line):
            fenced = not fenced
            continue
        if not fenced:
            yield number, line


def slug(text):
    """GitHub's anchor for a heading's text."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", text)  # a link's text only
    text = re.sub(r"<[^>]+>", "", text)  # HTML tags
    text = text.strip().lower()
    text = "".join(c for c in text if c.isalnum() or c in " -_")
    return text.replace(" ", "-")


def anchors(path, cache={}):
    if path not in cache:
        seen, found = {}, set()
        for _, line in prose_lines(path):
            m = HEADING.match(line)
            if not m:
                continue
            base = slug(m.group(2))
            n = seen.get(base, 0)
            seen[base] = n + 1
            found.add(base if n == 0 else f"{base}-{n}")
        cache[path] = found
    return cache[path]


def links(path):
    """(line number, target) of every link of the page."""
    for number, line in prose_lines(path):
        line = COMMENT.sub("", line)
        line = CODE_SPAN.sub(lambda m: "x" * len(m.group(0)), line)
        for m in INLINE.finditer(line):
            yield number, m.group(1)
        m = REFERENCE.match(line)
        if m:
            yield number, m.group(1)


TOP_DIRS = ("src", "scripts", "docs", "tests", "benches", "c_tests", "include", "examples", "fuzz", "python",
            "cmake", "consumer", "test-support", ".ci")
PLACEHOLDER = re.compile(r"[<{$]|\.\.\.|…")


def paths(path):
    """(line number, word) of every word of inline code that starts with a top-level folder."""
    for number, line in prose_lines(path):
        for m in CODE_SPAN.finditer(COMMENT.sub("", line)):
            for word in m.group(2).split():
                word = word.rstrip(".,;:)")
                if word.split("/")[0] in TOP_DIRS and "/" in word and not PLACEHOLDER.search(word):
                    yield number, word


def path_exists(src, page, word):
    for base in (src, os.path.dirname(page)):
        if glob.glob(os.path.join(base, word)) if "*" in word else os.path.exists(os.path.join(base, word)):
            return True
    return False


def check(src, page, target):
    """Why the link is broken, or None."""
    if SCHEME.match(target) or target.startswith("//"):
        return None
    path, _, anchor = target.partition("#")
    dest = os.path.normpath(os.path.join(os.path.dirname(page), path)) if path else page
    if not os.path.exists(dest):
        return f"{os.path.relpath(dest, src)} does not exist"
    if os.path.relpath(dest, src).startswith(".."):
        return "it leads out of the source tree"
    if not anchor:
        return None
    if not dest.endswith(".md") or os.path.isdir(dest):
        return f"#{anchor} points into {os.path.relpath(dest, src)}, which is not a Markdown page"
    if anchor not in anchors(dest):
        known = ", ".join(sorted(anchors(dest)))
        return f"{os.path.relpath(dest, src)} has no heading with the anchor #{anchor} (its anchors: {known})"
    return None


def problems(src, page):
    """(line number, what is wrong) of every broken link and missing path of the page."""
    for number, target in links(page):
        why = check(src, page, target)
        if why:
            yield number, f"broken link {target}: {why}"
    for number, word in paths(page):
        if not path_exists(src, page, word):
            yield number, f"no such path {word}"


def main():
    src = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".")
    found = [(os.path.relpath(page, src), number, what) for page in pages(src) for number, what in problems(src, page)]
    for page, number, what in found:
        print(f"{page}:{number}: {what}")
    checked = sum(len(list(links(page))) + len(list(paths(page))) for page in pages(src))
    print(f"{checked} links and paths in {len(pages(src))} pages, {len(found)} broken")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
