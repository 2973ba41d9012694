"""Per-kernel-unit symbol isolation (templates/project/variant/kernel_units.cmake) on a small C++
project without torch, laid out as the generated variant project is (settings on the module
target, then kb_isolate_kernel_units): two units define the same functions, globals, inline code
and class methods with different bodies, one unit calls into the other, and the binding calls
both. With isolation each unit keeps its own; without it the project does not link, or — when
only inline code collides — silently runs one unit's copy in both."""
import ctypes
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
TEMPLATES = REPO / "templates" / "project" / "variant"

pytestmark = pytest.mark.skipif(shutil.which("cmake") is None or shutil.which("ninja") is None,
                                reason="needs cmake and ninja")

CMAKE = """\
cmake_minimum_required(VERSION 3.25)
project(units LANGUAGES CXX)
set(CMAKE_POSITION_INDEPENDENT_CODE ON)
add_library(units MODULE)
set_target_properties(units PROPERTIES PREFIX "" OUTPUT_NAME "units")
target_compile_definitions(units PRIVATE FROM_MODULE=7)
target_compile_options(units PRIVATE $<$<COMPILE_LANGUAGE:CXX>:-fno-gnu-unique>)
set(KB_SYSTEM_INCLUDE_DIRS "${CMAKE_CURRENT_LIST_DIR}/sys")
target_include_directories(units SYSTEM PRIVATE ${KB_SYSTEM_INCLUDE_DIRS})
target_sources(units PRIVATE {sources})
include("${CMAKE_CURRENT_LIST_DIR}/kernel_units.cmake")
kb_isolate_kernel_units(units
  UNIT a "${CMAKE_CURRENT_LIST_DIR}/a1.cpp" "${CMAKE_CURRENT_LIST_DIR}/a2.cpp"
  UNIT b "${CMAKE_CURRENT_LIST_DIR}/b.cpp")
"""

BINDING = """\
#include <from_module.h>
int op_a();
int op_b();
extern "C" int value_a() { return op_a(); }
extern "C" int value_b() { return op_b() + FROM_MODULE - SYSTEM_HEADER; }
"""

# Unit a: two sources sharing its inline `twice` (a COMDAT group in both objects) and its helper.
A1 = """\
int scale_factor() { return 2; }
int table[2] = {10, 20};
inline int twice(int x) { return 2 * x; }
struct Scaler { int apply(int x) const; };
int Scaler::apply(int x) const { return x * scale_factor(); }
int a_helper();
int shared_helper();
int op_a() { return Scaler().apply(table[1]) + twice(1) + a_helper() + shared_helper(); }
"""
A2 = """\
int scale_factor();
inline int twice(int x) { return 2 * x; }
int a_helper() { return twice(scale_factor()) * 100; }
"""
# Unit b: the same names with other bodies, and shared_helper(), which unit a calls.
B = """\
int scale_factor() { return 3; }
int table[2] = {1000, 2000};
inline int twice(int x) { return 3 * x; }
struct Scaler { int apply(int x) const; };
int Scaler::apply(int x) const { return x * scale_factor(); }
int shared_helper() { return 5; }
int op_b() { return Scaler().apply(table[1]) + twice(1); }
"""
# The expected values: a = 20*2 + 2 + (2*2)*100 + 5 = 447; b = 2000*3 + 3 = 6003.
EXPECTED_A = 447
EXPECTED_B = 6003

# Only inline code collides: links without isolation, but one body serves both units.
A1_INLINE_ONLY = """\
inline int twice(int x) { return 2 * x; }
int op_a() { return twice(100); }
"""
A2_EMPTY = "int a_helper() { return 0; }\n"
B_INLINE_ONLY = """\
inline int twice(int x) { return 3 * x; }
int op_b() { return twice(100); }
"""


def write_project(root: Path, a1: str, a2: str, b: str) -> Path:
    root.mkdir(parents=True)
    (root / "sys").mkdir()
    (root / "sys" / "from_module.h").write_text("#define SYSTEM_HEADER 7\n")
    names = ["binding.cpp", "a1.cpp", "a2.cpp", "b.cpp"]
    for name, text in zip(names, [BINDING, a1, a2, b]):
        (root / name).write_text(text)
    sources = " ".join('"${CMAKE_CURRENT_LIST_DIR}/%s"' % name for name in names)
    (root / "CMakeLists.txt").write_text(CMAKE.replace("{sources}", sources))
    for name in ("kernel_units.cmake", "kernel_unit_object.cmake"):
        shutil.copy(TEMPLATES / name, root / name)
    return root


def build(root: Path, isolation: bool) -> subprocess.CompletedProcess:
    build_dir = root / "build"
    configure = subprocess.run(
        ["cmake", "-S", str(root), "-B", str(build_dir), "-G", "Ninja", "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON",
         f"-DKB_SYMBOL_ISOLATION={'ON' if isolation else 'OFF'}"],
        capture_output=True, text=True)
    assert configure.returncode == 0, configure.stdout + configure.stderr
    return subprocess.run(["ninja", "-C", str(build_dir)], capture_output=True, text=True)


def values(root: Path) -> tuple:
    library = ctypes.CDLL(str(root / "build" / "units.so"), mode=ctypes.RTLD_LOCAL)
    return library.value_a(), library.value_b()


def exported(root: Path) -> set:
    listing = subprocess.run(["nm", "-D", "--defined-only", str(root / "build" / "units.so")],
                             capture_output=True, text=True, check=True).stdout
    return {line.split()[-1] for line in listing.splitlines() if line.strip()}


def test_each_unit_keeps_its_own_symbols(tmp_path):
    root = write_project(tmp_path / "isolated", A1, A2, B)
    result = build(root, isolation=True)
    assert result.returncode == 0, result.stdout + result.stderr
    assert values(root) == (EXPECTED_A, EXPECTED_B)
    # Only what the binding uses (and its own C entry points) is exported; shared_helper, which
    # unit a calls, stays global between the units but is not needed outside them either.
    names = exported(root)
    assert {"value_a", "value_b", "_Z4op_av", "_Z4op_bv", "_Z13shared_helperv"} <= names
    for internal in ("_Z12scale_factorv", "table", "_Z5twicei", "_ZNK6Scaler5applyEi", "_Z8a_helperv"):
        assert internal not in names


def test_units_compile_with_the_module_settings(tmp_path):
    """Every source compiles as the module target would compile it (definitions, options, system
    include directories): only the object path and the module's export define differ."""
    import json
    import re

    root = write_project(tmp_path / "isolated", A1, A2, B)
    assert build(root, isolation=True).returncode == 0
    isolated = json.loads((root / "build" / "compile_commands.json").read_text())
    plain_root = write_project(tmp_path / "plain", A1_INLINE_ONLY, A2_EMPTY, B_INLINE_ONLY)
    build(plain_root, isolation=False)
    plain = json.loads((plain_root / "build" / "compile_commands.json").read_text())

    def normalized(entries, root):
        out = {}
        for entry in entries:
            command = re.sub(r"-o \S+", "-o OBJECT", entry["command"]).replace(" -Dunits_EXPORTS", "")
            out[Path(entry["file"]).name] = command.replace(str(root), "ROOT")
        return out

    assert normalized(isolated, root) == normalized(plain, plain_root)
    assert all("-isystem ROOT/sys" in command for command in normalized(isolated, root).values())


def test_without_isolation_duplicate_definitions_do_not_link(tmp_path):
    root = write_project(tmp_path / "plain", A1, A2, B)
    result = build(root, isolation=False)
    assert result.returncode != 0
    assert "multiple definition of `scale_factor()'" in result.stdout


def test_inline_code_of_the_same_name_runs_its_own_body(tmp_path):
    """Same-named inline functions with different bodies: without isolation the link silently
    keeps one copy for both units (an ODR violation); with it each unit runs its own."""
    plain = write_project(tmp_path / "plain", A1_INLINE_ONLY, A2_EMPTY, B_INLINE_ONLY)
    assert build(plain, isolation=False).returncode == 0
    a, b = values(plain)
    assert a == b  # one body serves both: the misbehaviour isolation prevents
    isolated = write_project(tmp_path / "isolated", A1_INLINE_ONLY, A2_EMPTY, B_INLINE_ONLY)
    result = build(isolated, isolation=True)
    assert result.returncode == 0, result.stdout + result.stderr
    assert values(isolated) == (200, 300 + 7 - 7)
