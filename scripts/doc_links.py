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

Every broken link is printed as `FILE:LINE: broken link TARGET: why`, and the exit status is 1
when there is one.
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
    top = ["README.md", "CHANGELOG.md", os.path.join("python", "README.md"), os.path.join("benches", "README.md")]
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


def main():
    src = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".")
    checked = broken = 0
    for page in pages(src):
        for number, target in links(page):
            checked += 1
            why = check(src, page, target)
            if why:
                broken += 1
                print(f"{os.path.relpath(page, src)}:{number}: broken link {target}: {why}")
    print(f"{checked} links in {len(pages(src))} pages, {broken} broken")
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
