"""One naming style for the C++ unit tests (ARCHITECTURE.md, Tests): TEST(suite, Name) with the
suite named after the function or type under test and the test's name in UpperCamelCase, as
GoogleTest asks (no underscore in a test's name: TEST(a, b_c) and TEST(a_b, c) would both define
the class a_b_c_Test)."""
import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
UNIT = REPO / "tests" / "unit"
TEST = re.compile(r"^\s*(?:TEST|TEST_F|TEST_P|TYPED_TEST|TYPED_TEST_P)\(\s*(\w+)\s*,\s*(\w+)\s*\)", re.M)
CAMEL = re.compile(r"(DISABLED_)?[A-Z][A-Za-z0-9]*")
# Not renamed yet (their tests were being edited when the rest was): remove an entry once its
# tests follow the style.
NOT_YET = ()


def unit_tests(skip=NOT_YET):
    for path in sorted(UNIT.rglob("*.cpp")):
        if path.relative_to(UNIT).parts[0] in skip:
            continue
        for match in TEST.finditer(path.read_text()):
            line = path.read_text().count("\n", 0, match.start()) + 1
            yield f"{path.relative_to(REPO)}:{line}", match.group(1), match.group(2)


def misnamed(tests):
    return [f"{where}: TEST({suite}, {name})" for where, suite, name in tests if not CAMEL.fullmatch(name)]


def test_unit_test_names_are_upper_camel_case():
    assert misnamed(unit_tests()) == [], "name these tests in UpperCamelCase"


def test_the_check_sees_a_snake_case_name():
    tests = [("a_test.cpp:1", "parse_size", "ReadsSuffixes"), ("a_test.cpp:2", "parse_size", "reads_suffixes"),
             ("a_test.cpp:3", "Strings", "Trim_Spaces"), ("a_test.cpp:4", "Strings", "DISABLED_TrimsTabs")]
    assert misnamed(tests) == ["a_test.cpp:2: TEST(parse_size, reads_suffixes)", "a_test.cpp:3: TEST(Strings, Trim_Spaces)"]


def test_it_reads_every_unit_test_file():
    assert len(list(unit_tests(skip=()))) > 500
