"""``python -m bpeviz``: the command line (see :mod:`bpeviz.cli`)."""

from bpeviz.cli import main

raise SystemExit(main())
