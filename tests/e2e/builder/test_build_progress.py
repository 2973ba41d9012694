"""Build progress without a terminal (build_progress.h, docs/build-engine.md): one line per step
with the variant's elapsed time, a line naming the source that has been compiling longest once a
compile runs past 10 s, no carriage returns; after the build, the slowest sources, when each started,
and a hint when the build waited for a slowest source that started late. The next build of the
directory starts the objects that took longest in the last one first (start_order.h); a first build,
the sources that read the most project code, torch's headers counted at a fixed weight."""
import hashlib
import json
import re
import shutil
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from kb_build_e2e_support import copy_fixture, run_build  # noqa: E402

pytestmark = pytest.mark.slow

EXTRAS = ["addone_cpu/extra_0.cpp", "addone_cpu/extra_1.cpp", "addone_cpu/extra_2.cpp"]


@pytest.fixture(scope="module")
def one_job_build(tmp_path_factory, kernel_builder, kb_python, cpu_variant):
    """The addone fixture with three small sources more in its CPU kernel, built with one job."""
    project = copy_fixture("addone", tmp_path_factory.mktemp("progress"))
    for index, name in enumerate(EXTRAS):
        (project / name).write_text(f"int addone_extra_{index}() {{ return {index}; }}\n")
    # extra_0.cpp reads the most project code (a 12 KiB header of its own): with no earlier build to
    # learn from, the build starts it first although `src` lists it third. extra_1.cpp reads 6 KiB,
    # less than what torch's headers count as: the two torch-including sources start before it.
    (project / "addone_cpu/extra_0.cpp").write_text('#include "extra_table.h"\nint addone_extra_0() { return 0; }\n')
    (project / "addone_cpu/extra_table.h").write_text("// a table of the project's own\n" * 384)
    (project / "addone_cpu/extra_1.cpp").write_text('#include "extra_list.h"\nint addone_extra_1() { return 1; }\n')
    (project / "addone_cpu/extra_list.h").write_text("// a list of the project's own...\n" * 192)
    config = project / "build.toml"
    config.write_text(config.read_text().replace('src = ["addone_cpu/addone_cpu.cpp"]',
                                                 "src = [" + ", ".join(f'"{s}"' for s in ["addone_cpu/addone_cpu.cpp", *EXTRAS]) + "]"))
    # Without ccache and the torch header cache, each torch-including source takes well over 10 s.
    result = run_build(kernel_builder, project, kb_python, "--variant", cpu_variant, "--unique-id", "p1",
                       "--no-cache", "--no-header-cache", "--cores", "1", "--json")
    return project, result


def test_plain_progress_names_a_long_compile(one_job_build, cpu_variant):
    project, result = one_job_build
    assert "\r" not in result.stderr
    # One job: each source starts when the one before it ends. The slowest gets the hint when the
    # build waited for it (it ended last, give or take 0.5 s) and it started late (at least 2 s and
    # a tenth of its own time after the first compile).
    times = json.loads(result.stdout)["compile_times"][cpu_variant]
    by_start = sorted(times, key=lambda t: t["started"])
    assert by_start[0]["started"] == 0
    for before, after in zip(by_start, by_start[1:]):
        assert after["started"] >= before["started"] + before["seconds"] - 0.05, times
    slowest = times[0]
    last_end = max(t["started"] + t["seconds"] for t in times)
    late = (slowest["started"] + slowest["seconds"] >= last_end - 0.5 and slowest["started"] >= 2
            and slowest["started"] >= 0.1 * slowest["seconds"])
    hint = f"hint: the build waited for {slowest['source']} ("
    assert (hint in result.stderr) == late, (times, result.stderr)
    step = re.compile(re.escape(cpu_variant) + r": (generate|configure|compile|link|stage|check|done)"
                      r"( \[\d+/\d+\])? \((\d+):(\d\d)\)(, slowest running: (\S+) \((\d+) s\))?")
    steps = [step.fullmatch(line) for line in result.stderr.splitlines() if line.startswith(cpu_variant + ": ")]
    steps = [m for m in steps if m]
    assert [m.group(1) for m in steps if not m.group(5)][-1] == "done", result.stderr
    long = [m for m in steps if m.group(5)]
    # The running compiles are looked at once a second: a compile must outlast 10 s by more than
    # that for its line to be due. On a fast idle machine no source may take that long.
    slowest = [float(s) for s in re.findall(r"^\s+(\d+\.\d) s  ", result.stderr, re.M)]
    if not long and max(slowest, default=0) < 12:
        pytest.skip(f"no compile ran past 12 s here (slowest {max(slowest, default=0)} s)")
    assert long, result.stderr
    assert long[0].group(1) == "compile" and int(long[0].group(7)) >= 10
    assert long[0].group(6) in {"torch-ext/torch_binding.cpp", "addone_cpu/addone_cpu.cpp"}
    # The lines come in time order.
    elapsed = [int(m.group(3)) * 60 + int(m.group(4)) for m in steps]
    assert elapsed == sorted(elapsed)
    assert "slowest sources" in result.stderr


def test_a_first_build_starts_the_sources_that_read_the_most_code_first(one_job_build, cpu_variant):
    project, first = one_job_build
    times = {t["source"]: t for t in json.loads(first.stdout)["compile_times"][cpu_variant]}
    assert times["addone_cpu/extra_0.cpp"]["started"] == 0, times
    # Then the two torch-including sources (torch's headers count as 8 KiB; the binding reads its
    # torch_binding.h too), then extra_1.cpp (6 KiB of project code), then extra_2.cpp.
    order = sorted(times, key=lambda name: times[name]["started"])
    assert order[:5] == ["addone_cpu/extra_0.cpp", "torch-ext/torch_binding.cpp", "addone_cpu/addone_cpu.cpp",
                         "addone_cpu/extra_1.cpp", "addone_cpu/extra_2.cpp"], times
    log = (project / "build" / ".kb" / cpu_variant / "build.log").read_text()
    reads = {"addone_cpu/extra_0.cpp": (["addone_cpu/extra_0.cpp", "addone_cpu/extra_table.h"], 0),
             "torch-ext/torch_binding.cpp": (["torch-ext/torch_binding.cpp", "torch-ext/torch_binding.h"], 8),
             "addone_cpu/addone_cpu.cpp": (["addone_cpu/addone_cpu.cpp"], 8)}
    kib = {name: f"{sum((project / f).stat().st_size for f in files) / 1024 + torch:.1f} KiB"
           for name, (files, torch) in reads.items()}
    assert ("start order: no earlier build; the sources that read the most project code (their own and their "
            "headers'; torch's headers count as 8 KiB) first: "
            + ", ".join(f"{name} ({size})" for name, size in kib.items()) + ", ...") in log, log


def test_next_build_starts_the_longest_compile_of_the_last_one_first(one_job_build, kernel_builder, kb_python,
                                                                      cpu_variant):
    project, first = one_job_build
    work = project / "build" / ".kb" / cpu_variant
    module = next((project / "build" / cpu_variant).glob("*.so"))
    digest = hashlib.sha256(module.read_bytes()).hexdigest()
    # The last of the three small sources (last in `src`, so started last) took longest in the last
    # build, as .ninja_log tells: a record of it with a longer time goes after its own.
    log = work / "cmake-build" / ".ninja_log"
    records = {name: [line.split("\t") for line in log.read_text().splitlines()
                      if line.split("\t")[3:4] and line.split("\t")[3].endswith(Path(name).name + ".o")]
               for name in EXTRAS}
    assert all(len(found) == 1 for found in records.values()), records
    fields = list(records["addone_cpu/extra_2.cpp"][0])
    fields[1] = str(int(fields[0]) + 99000)
    log.write_text(log.read_text() + "\t".join(fields) + "\n")
    # A comment in each small source: they compile again, to the same objects.
    for name in EXTRAS:
        (project / name).write_text((project / name).read_text() + "// edited\n")
    result = run_build(kernel_builder, project, kb_python, "--variant", cpu_variant, "--unique-id", "p1",
                       "--no-cache", "--no-header-cache", "--cores", "1", "--json")
    times = {t["source"]: t for t in json.loads(result.stdout)["compile_times"][cpu_variant]}
    assert sorted(times) == sorted(EXTRAS), times
    # One job: it started first, then the other two, the longer of their last compiles first (in
    # their `src` order when equal).
    assert times["addone_cpu/extra_2.cpp"]["started"] == 0, times
    last = {name: int(records[name][0][1]) - int(records[name][0][0]) for name in EXTRAS[:2]}
    expected = sorted(EXTRAS[:2], key=lambda name: -last[name])
    assert 0 < times[expected[0]]["started"] < times[expected[1]]["started"], (times, last)
    assert ("start order: the objects that took longest in the last build first: addone_cpu/extra_2.cpp (99.0 s)"
            in (work / "build.log").read_text())
    # Only the order of the build statements changed: the module (its link order) is the same.
    assert hashlib.sha256(module.read_bytes()).hexdigest() == digest


def test_a_new_build_directory_starts_with_the_other_variants_times(one_job_build, kernel_builder, kb_python,
                                                                    cpu_variant):
    """A build of several variants builds them one after another: a variant's new build directory
    has no times, so it starts its objects in the order of the newest other variant's last build,
    which shares their paths (here a copy of this variant's .ninja_log, as another variant's, in
    which extra_1.cpp took longest)."""
    project, _ = one_job_build
    kb = project / "build" / ".kb"
    module = next((project / "build" / cpu_variant).glob("*.so"))
    digest = hashlib.sha256(module.read_bytes()).hexdigest()
    log = (kb / cpu_variant / "cmake-build" / ".ninja_log").read_text()
    [record] = [line.split("\t") for line in log.splitlines()
                if line.split("\t")[3:4] and line.split("\t")[3].endswith("extra_1.cpp.o")][-1:]
    record[1] = str(int(record[0]) + 77000)
    other = kb / "torch299-cxx11-cpu-x86_64-linux" / "cmake-build"
    other.mkdir(parents=True)
    (other / ".ninja_log").write_text(log + "\t".join(record) + "\n")
    shutil.rmtree(kb / cpu_variant)  # its stamp, log and CMake build directory
    result = run_build(kernel_builder, project, kb_python, "--variant", cpu_variant, "--unique-id", "p1",
                       "--no-cache", "--no-header-cache", "--cores", "1", "--json")
    times = {t["source"]: t for t in json.loads(result.stdout)["compile_times"][cpu_variant]}
    assert times["addone_cpu/extra_1.cpp"]["started"] == 0, times
    assert min(t["started"] for name, t in times.items() if name != "addone_cpu/extra_1.cpp") > 0, times
    assert ("start order: the objects that took longest in the last build of torch299-cxx11-cpu-x86_64-linux first: "
            "addone_cpu/extra_1.cpp (77.0 s)") in (kb / cpu_variant / "build.log").read_text()
    # A new directory, the same compile commands and link order: the same module.
    assert hashlib.sha256(module.read_bytes()).hexdigest() == digest
