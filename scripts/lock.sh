# Sourced (not run) by the scripts that change what the machine or a shared cache holds:
# apt-get installs, rustup's targets, the tools in ~/.cache/directml_subset/tools and the Python
# tools in .venv/. ctest runs the deep checks two at a time (CMakePresets.json, test preset
# `check`), so two of them may want the same thing at once; each such step runs under a lock.
#
# dmls_locked NAME COMMAND [ARGS...]: runs COMMAND (a program or a shell function) in a subshell
# that holds the lock NAME, a flock(1) lock on
# ${XDG_CACHE_HOME:-~/.cache}/directml_subset/locks/NAME.lock; waits for it as long as it takes
# (each check's ctest timeout bounds the wait). Locks: apt (apt-get update and install),
# rustup (rustup target add), tools (cargo install into the tools directory, pip install into
# .venv/). Without flock (util-linux) it runs COMMAND unlocked. Returns COMMAND's status.
dmls_locked() {
    local name=$1 dir=${XDG_CACHE_HOME:-$HOME/.cache}/directml_subset/locks
    shift
    (
        if command -v flock >/dev/null 2>&1 && mkdir -p "$dir" 2>/dev/null &&
            exec 9>>"$dir/$name.lock"; then
            flock 9
        fi
        "$@"
    )
}

# dmls_apt_install PACKAGE...: apt-get update, then apt-get install of PACKAGE... (quiet, no
# recommended packages), under the lock apt, its output dropped. Returns apt-get's status; the
# caller then checks for what it wanted and says SKIP where it is still missing.
dmls_apt_install() {
    dmls_locked apt sh -c 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
        --no-install-recommends "$@"' sh "$@" >/dev/null 2>&1
}
