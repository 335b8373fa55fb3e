"""``scripts/serve.py`` as a module, for the tests that start what it starts (nginx, the
workers, Redis). It is a script, not part of the package: loaded from its path, once."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

SERVE = Path(__file__).parents[1] / "scripts" / "serve.py"
NAME = "bpeviz_serve"


def load_serve() -> ModuleType:
    if NAME in sys.modules:
        return sys.modules[NAME]
    spec = importlib.util.spec_from_file_location(NAME, SERVE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[NAME] = module
    spec.loader.exec_module(module)
    return module
