# Import check of a built variant (build-output.md §9 step 6): imports the variant directory as a
# package under its ops id, from outside sys.path, the way the loader does.
# Usage: import_check.py <variant dir> <ops id>
import importlib.util
import sys
from pathlib import Path

variant_dir = Path(sys.argv[1]).resolve()
ops_id = sys.argv[2]
spec = importlib.util.spec_from_file_location(
    ops_id, variant_dir / "__init__.py", submodule_search_locations=[str(variant_dir)]
)
module = importlib.util.module_from_spec(spec)
sys.modules[ops_id] = module
spec.loader.exec_module(module)
