"""fork() safety: devices whose worker threads ran in the parent work in forked children.

The parent runs ``nonzero_coordinates`` on a 2048 x 2048 array (large enough for the library's
parallel path; a part of it through the thread's scratch buffer, one into ``out=``) on the default device and on a device with its own two-thread pool, then forks
(``os.fork`` and ``multiprocessing`` with the fork start method); the children run the same and
more, and every result is compared with numpy. A child that hangs is killed after a deadline,
so a regression fails instead of hanging the suite.
"""

import multiprocessing
import os
import signal
import sys
import threading
import time
import traceback
import warnings

import numpy as np
import pytest

import directml_subset as dml

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="no os.fork on this platform")

DEADLINE = 120  # seconds a child may take (generous: busy machines, sanitizers)
SIDE = 2048


def big_input(seed):
    rng = np.random.default_rng(seed)
    x = rng.random((SIDE, SIDE), dtype=np.float32)
    x[rng.random((SIDE, SIDE)) < 0.6] = 0
    return x


def check(x, device=None):
    got = dml.nonzero_coordinates(x, device=device)
    want = np.argwhere(x)
    if got.shape != want.shape or not np.array_equal(got, want):
        raise AssertionError(f"nonzero_coordinates differs from numpy: {got.shape} vs {want.shape}")
    # Rows that fit this thread's scratch buffer (kept across calls, so a forked child starts
    # with its parent's), and rows written into the caller's `out`.
    small = x[:300]
    if not np.array_equal(dml.nonzero_coordinates(small, device=device), np.argwhere(small)):
        raise AssertionError("nonzero_coordinates through the scratch buffer differs from numpy")
    out = np.empty((2, small.size), np.int64, order="F")
    if not np.array_equal(dml.onnx_nonzero(small, device=device, out=out), np.nonzero(small)):
        raise AssertionError("onnx_nonzero into out differs from numpy")
    eye = dml.diagonal_matrix((1024, 1024), np.float32, -1, 2, value=2.5, device=device)
    x_minus_y = np.subtract.outer(np.arange(1024), np.arange(1024)).T  # [y, x] = x - y
    want_eye = np.where((x_minus_y >= -1) & (x_minus_y < 2), 2.5, 0).astype(np.float32)
    if not np.array_equal(eye, want_eye):
        raise AssertionError("diagonal_matrix differs from numpy")


def wait(pid, what):
    deadline = time.monotonic() + DEADLINE
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done == pid:
            if os.WIFSIGNALED(status):
                sig = os.WTERMSIG(status)
                hung = " (it hung: alarm)" if sig == signal.SIGALRM else ""
                pytest.fail(f"{what}: child killed by signal {sig}{hung}")
            assert os.WEXITSTATUS(status) == 0, f"{what}: child failed (its stderr above)"
            return
        time.sleep(0.02)
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    pytest.fail(f"{what}: child still running after {DEADLINE} s (hung): killed")


def fork_and_check(body, what):
    """Runs body() in a forked child with an alarm; fails when it raises, hangs or crashes."""
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            signal.alarm(DEADLINE - 10)
            body()
            code = 0
        except BaseException:
            traceback.print_exc()
        finally:
            sys.stderr.flush()
            os._exit(code)
    wait(pid, what)


@pytest.mark.parametrize("threads", [0, 2])
def test_os_fork_after_parallel_execution(threads):
    x = big_input(threads + 1)
    device = dml.Device(threads=threads, extensions=True)
    check(x)  # the default device (the process-wide pool)
    check(x, device)

    def child():
        check(x)
        check(x, device)
        with dml.Device(threads=threads) as fresh:
            check(x, fresh)
        # And once more across a second fork.
        fork_and_check(lambda: (check(x), check(x, device)), "grandchild")

    fork_and_check(child, f"threads={threads}")
    check(x)  # the parent is unaffected
    check(x, device)
    device.close()


def test_os_fork_during_executions():
    """Forks while another thread of the parent is executing on the same devices."""
    x = big_input(7)
    device = dml.Device(threads=2)
    stop = threading.Event()
    errors = []
    runs = [0]

    def busy():
        try:
            while not stop.is_set():
                check(x)
                check(x, device)
                runs[0] += 1
        except BaseException as e:  # reported by the main thread
            errors.append(e)

    t = threading.Thread(target=busy)
    t.start()
    try:
        with warnings.catch_warnings():
            # Python 3.12+ warns that forking a process with threads may deadlock the child:
            # that is exactly what this test checks does not happen.
            warnings.simplefilter("ignore", DeprecationWarning)
            for i in range(3):
                time.sleep(0.05)
                fork_and_check(lambda: (check(x), check(x, device)), f"fork {i}")
    finally:
        stop.set()
        t.join()
    assert not errors, errors
    assert runs[0] > 0
    device.close()


_MP_DEVICE = None


def _mp_task(seed):
    x = big_input(seed)
    check(x)
    check(x, _MP_DEVICE)
    with dml.Device(threads=2) as fresh:
        check(x, fresh)
    return os.getpid(), int(np.count_nonzero(x))


def test_multiprocessing_fork_pool():
    global _MP_DEVICE
    _MP_DEVICE = dml.Device(threads=2)
    try:
        x = big_input(11)
        check(x)  # start the parent's pools before the workers are forked
        check(x, _MP_DEVICE)
        ctx = multiprocessing.get_context("fork")
        with ctx.Pool(2) as pool:
            results = pool.map_async(_mp_task, range(20, 26)).get(timeout=DEADLINE)
        assert [n for _, n in results] == [int(np.count_nonzero(big_input(s))) for s in range(20, 26)]
        assert os.getpid() not in {pid for pid, _ in results}
        check(x)
    finally:
        _MP_DEVICE.close()
        _MP_DEVICE = None


def test_os_fork_while_a_device_lock_is_held():
    """A lock of the package held by another thread at the fork is renewed in the child: a new
    layout (which takes the device's operator-cache lock) and the default device work there."""
    device = dml.Device(threads=2)
    x = big_input(5)
    check(x, device)
    held = threading.Event()
    release = threading.Event()

    def hold():
        with device._ops_lock, dml._api._default_lock:
            held.set()
            release.wait()

    t = threading.Thread(target=hold)
    t.start()
    try:
        assert held.wait(10)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            # 37 x 41 is a layout this device has not seen, so the child must take the lock.
            fork_and_check(
                lambda: (check(x, device), dml.trilu(np.ones((37, 41), np.float32), device=device)),
                "locks held at fork",
            )
    finally:
        release.set()
        t.join()
    device.close()
