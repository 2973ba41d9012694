"""Suite-wide hooks.

Collection order: the test files marked `slow` (they compile torch extensions, one to three minutes
each on two cores) run first. scripts/test hands whole files to parallel workers (pytest-xdist,
--dist loadfile --no-loadscope-reorder) in collection order, so a long compile started last would
leave the other workers idle while it finishes. Within the two groups the order is pytest's own.

KB_TEST_CPU_REPORT=FILE appends one line per test to FILE: the node id, the CPU seconds the test
took in the pytest process and in the child processes it waited for (compilers, servers, Python
interpreters importing torch), and its wall seconds; tab-separated. On two cores the suite's CPU
time, not its wall time, is what bounds a parallel run, so this is what to read before making CI
faster.
"""
import os
import resource
import time

import pytest


def pytest_collection_modifyitems(items):
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)


def _cpu_seconds() -> float:
    total = 0.0
    for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN):
        usage = resource.getrusage(who)
        total += usage.ru_utime + usage.ru_stime
    return total


if os.environ.get("KB_TEST_CPU_REPORT"):
    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(item, nextitem):
        cpu, wall = _cpu_seconds(), time.monotonic()
        yield
        line = f"{item.nodeid}\t{_cpu_seconds() - cpu:.2f}\t{time.monotonic() - wall:.2f}\n"
        with open(os.environ["KB_TEST_CPU_REPORT"], "a") as report:
            report.write(line)
