"""Reference implementations vendored for oracle tests (never imported by ``bpeviz``).

``minbpe_base.py``, ``minbpe_basic.py`` and ``minbpe_regex.py`` are Andrej Karpathy's minbpe
(https://github.com/karpathy/minbpe, MIT licence, see ``LICENSE-minbpe.txt``), copied verbatim
except for the header comment and the one relative import each file needs here. Tests train,
save, load and encode with them to check that our ``.model`` / ``.vocab`` files are minbpe's.
"""

from .minbpe_base import Tokenizer, get_stats, merge, render_token
from .minbpe_basic import BasicTokenizer
from .minbpe_regex import GPT2_SPLIT_PATTERN, GPT4_SPLIT_PATTERN, RegexTokenizer

__all__ = [
    "GPT2_SPLIT_PATTERN",
    "GPT4_SPLIT_PATTERN",
    "BasicTokenizer",
    "RegexTokenizer",
    "Tokenizer",
    "get_stats",
    "merge",
    "render_token",
]
