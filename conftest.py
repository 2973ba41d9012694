"""Suite-wide collection order: the test files marked `slow` (they compile torch extensions, one
to three minutes each on two cores) run first. scripts/test hands whole files to parallel workers
(pytest-xdist, --dist loadfile) in collection order, so a long compile started last would leave
the other workers idle while it finishes. Within the two groups the order is pytest's own."""


def pytest_collection_modifyitems(items):
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)
