"""CSV downloads that a spreadsheet opens as data, never as formulas.

Tokens come from the user's text, and a spreadsheet runs a cell that begins with ``=``, ``+``,
``-`` or ``@`` as a formula (a tab or carriage return can hide one). As OWASP advises for
CSV injection, such a text cell gets a leading single quote; numbers are left as they are.
Every CSV download of the app is made by :func:`csv_bytes`.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def neutralised(value: Any) -> Any:
    """A text cell that a spreadsheet would read as a formula, quoted; anything else as is.

    >>> neutralised("=1+2"), neutralised("a=b"), neutralised(-3)
    ("'=1+2", 'a=b', -3)
    """
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


def csv_bytes(frame: pd.DataFrame, **options: Any) -> bytes:
    """``frame`` as UTF-8 CSV bytes (``index=False``; other ``to_csv`` options passed on),
    every text cell :func:`neutralised`. Rows end in CRLF, as RFC 4180 has it: the writer
    then quotes a cell holding a lone carriage return, which would otherwise end its row."""
    safe = frame.copy()
    for column in safe.columns:
        if safe[column].dtype == object or pd.api.types.is_string_dtype(safe[column]):
            safe[column] = safe[column].map(neutralised)
    return safe.to_csv(index=False, lineterminator="\r\n", **options).encode("utf-8")
