"""Seeds: every test that takes `rng` gets a generator seeded from the session seed and its own
name. The session seed is random unless DIRECTML_SUBSET_SEED is set; it is printed in the
header and with every failure, so a failure can be replayed exactly."""

import os
import random
import zlib

import numpy as np
import pytest

SEED = int(os.environ.get("DIRECTML_SUBSET_SEED", "0")) or random.SystemRandom().randrange(1, 2**31)


def pytest_report_header(config):
    import directml_subset

    return [
        f"directml_subset {directml_subset.__version__} from {directml_subset.LIBRARY_PATH}",
        f"random seed {SEED} (replay with DIRECTML_SUBSET_SEED={SEED})",
    ]


@pytest.fixture
def rng(request):
    seed = (SEED * 1_000_003 + zlib.crc32(request.node.nodeid.encode())) % 2**63
    request.node._dmls_seed = seed
    return np.random.default_rng(seed)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.failed:
        report.sections.append(
            (
                "random seed",
                f"replay with DIRECTML_SUBSET_SEED={SEED} "
                f"(this test's generator seed: {getattr(item, '_dmls_seed', 'none')})",
            )
        )
