#!/usr/bin/env python3
"""Checks that every code block of the documentation works as written (run by
scripts/check_readme.sh).

    python3 scripts/readme_blocks.py <source dir> <build dir>

The pages are README.md, then docs/*.md in name order, then python/README.md. A fenced block
is checked according to its language and the HTML comment on the line before it (invisible on
a rendered page):

- ```c / ```cpp: compiled as a whole program (C11 / C++17, -Wall -Wextra -Wpedantic -Werror)
  against the build's static library and run; every line it prints must appear in the block
  as a comment (`/* count 4: ... */`), so the comments cannot drift from what the code does.
- ```python: run with the package from python/ and the build's shared library; a line
  `EXPR  # ... DTYPE VALUE` whose comment ends in a dtype and a value (e.g.
  `dml.trilu(x)  # Trilu: float32 [[0, 2], [0, 0]]`) must evaluate to a numpy array of that
  dtype and value.
- ```cmake: saved as CMakeLists.txt of the program directory (see "app" below).
- `<!-- readme-check: fragment of PATH -->`: the block's lines appear, in order, in PATH (the
  text of the page must say so visibly).
- `<!-- readme-check: run in clone -->`: run with bash -e in a copy of the source tree whose
  build/ is the build directory and whose target/ is a cargo target directory kept in the build
  directory, with HOME set to an empty directory.
- `<!-- readme-check: run in app -->`: run with bash -e in the program directory, which holds
  the README's C block as app.c and the first cmake block of the pages as CMakeLists.txt; same
  HOME.
- `<!-- readme-check: skip, REASON -->`: not run (REASON says why or what runs it instead).
Any other block fails the check. Blocks run in the pages' order, each page's from top to
bottom, so a later block sees what an earlier one made (an install prefix, $HOME).
"""

import glob
import os
import re
import shutil
import subprocess
import sys

FENCE = re.compile(r"^```(\w*)\s*$")
MARKER = re.compile(r"^<!--\s*readme-check:\s*(.*?)\s*-->$")
STATIC_DEPS = ["-lutil", "-lrt", "-lpthread", "-lm", "-ldl"]
WARNINGS = ["-Wall", "-Wextra", "-Wpedantic", "-Werror"]


def blocks(path):
    """(line number, language, marker or None, text) of every fenced block."""
    lines = open(path, encoding="utf-8").read().split("\n")
    out, i = [], 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        start, lang = i, m.group(1)
        j = i + 1
        while j < len(lines) and lines[j].strip() != "```":
            j += 1
        k = start - 1
        while k >= 0 and not lines[k].strip():
            k -= 1
        mm = MARKER.match(lines[k].strip()) if k >= 0 else None
        out.append((start + 1, lang, mm.group(1) if mm else None, "\n".join(lines[start + 1 : j]) + "\n"))
        i = j + 1
    return out


def pages(src):
    """The pages whose blocks are checked, in the order they run."""
    found = [os.path.join(src, "README.md")]
    found += sorted(glob.glob(os.path.join(src, "docs", "*.md")))
    found.append(os.path.join(src, "python", "README.md"))
    return [p for p in found if os.path.isfile(p)]


def run(cmd, **kw):
    print("$", " ".join(cmd) if isinstance(cmd, list) else cmd, flush=True)
    return subprocess.run(cmd, check=True, text=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, **kw).stdout


def check_printed(text, printed):
    """Every printed line must appear in a comment of the block."""
    found = re.findall(r"/\*(.*?)\*/|//([^\n]*)", text, re.S)
    comments = " ".join(" ".join(a or b for a, b in found).split())
    for line in printed.strip().splitlines():
        if " ".join(line.split()) not in comments:
            raise AssertionError(f"the program printed {line!r}, which no comment of the block shows")


def check_python(text, src, lib, env):
    env = dict(env, DIRECTML_SUBSET_LIBRARY=lib, PYTHONPATH=os.path.join(src, "python"))
    # Each `EXPR  # DTYPE VALUE` line becomes a check of EXPR's value.
    expect = re.compile(r"^(\S.*?)\s+#.*?\b(u?int\d+|float\d+|bool) (\[.*\]|-?\d[^ ]*)\s*$")
    body = ["import numpy as _np"]
    for line in text.splitlines():
        m = expect.match(line)
        if m:
            expr, dtype, value = m.groups()
            body.append(
                f"_v = ({expr})\n"
                f"_w = _np.array({value}, dtype=_np.{dtype})\n"
                f"assert isinstance(_v, _np.ndarray) and _v.dtype == _w.dtype and _v.shape == _w.shape "
                f"and (_v == _w).all(), {expr!r} + ' is ' + repr(_v) + ', the page says ' + repr(_w)\n"
                f"print('ok:', {expr!r})"
            )
        else:
            body.append(line)
    print("$ python3 <the block, each checked line wrapped in an assertion>", flush=True)
    out = subprocess.run([sys.executable, "-c", "\n".join(body)], env=env, cwd=os.path.dirname(src.rstrip("/")) or "/",
                         check=True, text=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT).stdout
    print(out, end="")


def main():
    src, build = (os.path.abspath(a) for a in sys.argv[1:3])
    work = os.path.join(build, "readme-check")
    home, app, clone = (os.path.join(work, d) for d in ("home", "app", "clone"))
    for d in (home, app, clone):
        shutil.rmtree(d, ignore_errors=True)
    os.makedirs(home)
    os.makedirs(app)
    # A copy of the source tree: build/ is this build, target/ a cargo target dir that is kept.
    shutil.copytree(src, clone, symlinks=True,
                    ignore=shutil.ignore_patterns(".git", "build", "target*", ".venv", "__pycache__"))
    os.symlink(build, os.path.join(clone, "build"))
    os.makedirs(os.path.join(work, "target"), exist_ok=True)
    os.symlink(os.path.join(work, "target"), os.path.join(clone, "target"))
    # ./dev in the copy uses the source tree's .venv (it checks the venv's real path).
    if os.path.isdir(os.path.join(src, ".venv")):
        os.symlink(os.path.join(src, ".venv"), os.path.join(clone, ".venv"))

    # The environment of a user's shell: no variable of this build (build.rs reads
    # DIRECTML_SUBSET_SONAME), HOME empty.
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DIRECTML_SUBSET", "CARGO_TARGET_DIR"))}
    env["HOME"] = home
    env.setdefault("CARGO_HOME", os.path.join(os.environ.get("HOME", "/root"), ".cargo"))
    env["RUSTUP_HOME"] = os.environ.get("RUSTUP_HOME", os.path.join(os.environ.get("HOME", "/root"), ".rustup"))
    env["PATH"] = os.path.join(env["CARGO_HOME"], "bin") + os.pathsep + env.get("PATH", "")

    lib_dir = os.path.join(build, "lib")
    # (page, line number, language, marker, text) of every block of every page.
    all_blocks = [(os.path.relpath(page, src),) + b for page in pages(src) for b in blocks(page)]
    c_blocks = [b for b in all_blocks if b[0] == "README.md" and b[2] == "c" and b[3] is None]
    cmake_blocks = [b for b in all_blocks if b[2] == "cmake" and b[3] is None]
    if c_blocks:
        open(os.path.join(app, "app.c"), "w").write(c_blocks[0][4])
    if cmake_blocks:
        open(os.path.join(app, "CMakeLists.txt"), "w").write(cmake_blocks[0][4])

    failures = 0
    for block in all_blocks:
        page, number, lang, marker, text = block
        what = f"{page}:{number} ({lang or 'no language'}{', ' + marker if marker else ''})"
        print(f"== {what}", flush=True)
        try:
            if marker and marker.startswith("skip"):
                print("   not run:", marker)
            elif marker and marker.startswith("fragment of "):
                path = os.path.join(src, marker[len("fragment of "):])
                lines = [" ".join(l.split()) for l in open(path, encoding="utf-8")]
                pos = 0
                for line in text.splitlines():
                    line = " ".join(line.split())
                    if not line:
                        continue
                    while pos < len(lines) and line not in lines[pos]:
                        pos += 1
                    if pos == len(lines):
                        raise AssertionError(f"{line!r} is not in {path} (after the lines before it)")
            elif marker in ("run in clone", "run in app"):
                cwd = clone if marker == "run in clone" else app
                print(run(["bash", "-euo", "pipefail", "-c", text], cwd=cwd, env=env), end="")
            elif marker is not None:
                raise AssertionError(f"unknown marker {marker!r}")
            elif lang in ("c", "cpp"):
                exe = os.path.join(work, re.sub(r"\W", "_", page) + f"_block{number}")
                source = exe + (".c" if lang == "c" else ".cpp")
                open(source, "w").write(text)
                cc = ["cc", "-std=c11"] if lang == "c" else ["c++", "-std=c++17"]
                run(cc + WARNINGS + ["-I", os.path.join(src, "include"), source,
                                     os.path.join(lib_dir, "libdirectml_subset.a")] + STATIC_DEPS + ["-o", exe])
                printed = run([exe])
                print(printed, end="")
                check_printed(text, printed)
            elif lang == "python":
                check_python(text, src, os.path.join(lib_dir, "libdirectml_subset.so"), env)
            elif lang == "cmake" and block in cmake_blocks[:1]:
                print("   the program directory's CMakeLists.txt (built by a `run in app` block)")
            else:
                raise AssertionError("no readme-check marker and not a c, cpp or python block")
        except subprocess.CalledProcessError as e:
            failures += 1
            print(e.stdout or "", end="")
            print(f"FAILED {what}: exit status {e.returncode}")
        except AssertionError as e:
            failures += 1
            print(f"FAILED {what}: {e}")
    print(f"{len(all_blocks)} blocks, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
