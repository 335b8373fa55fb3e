"""CSV downloads cannot carry spreadsheet formulas (issue 17): a text holding
``=HYPERLINK(...)`` gave 222 cells starting with ``=``. Every CSV download goes through
``bpeviz.app.shared.csv_cells.csv_bytes``, which prefixes a single quote to a text cell that begins
with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return (OWASP's advice on CSV injection).
"""

from __future__ import annotations

import csv
import io

import pandas as pd
import pytest

from bpeviz.app.compression import curves as compression
from bpeviz.app.shared import tables
from bpeviz.app.shared.csv_cells import FORMULA_STARTS, csv_bytes
from bpeviz.engine.history import train

HOSTILE = '=HYPERLINK("http://example.com","x") +1 -2 @SUM(A1) \t=1 \r=2 '


def cells(data: bytes) -> list[str]:
    rows = list(csv.reader(io.StringIO(data.decode("utf-8"), newline="")))
    return [cell for row in rows for cell in row]


def test_text_cells_that_could_start_a_formula_get_a_quote() -> None:
    frame = pd.DataFrame(
        {"token": ["=1+2", "+x", "-x", "@x", "\tx", "\rx", "ok", "a=b"], "count": range(-4, 4)}
    )
    read = cells(csv_bytes(frame))
    assert read[2:] == [
        "'=1+2", "-4", "'+x", "-3", "'-x", "-2", "'@x", "-1",
        "'\tx", "0", "'\rx", "1", "ok", "2", "a=b", "3",
    ]  # fmt: skip
    assert set(FORMULA_STARTS) == {"=", "+", "-", "@", "\t", "\r"}


@pytest.fixture(scope="module")
def hostile_history():
    return train(HOSTILE * 20, 300, pretokenizer="bytes")


def _formula_cells(data: bytes) -> list[str]:
    numbers = {"-"}  # a negative number is a number, not a formula
    return [
        cell
        for cell in cells(data)
        if cell[:1] in FORMULA_STARTS and not (cell[:1] in numbers and _is_number(cell))
    ]


def _is_number(cell: str) -> bool:
    try:
        float(cell)
    except ValueError:
        return False
    return True


def test_the_merge_history_csv_is_safe(hostile_history) -> None:
    assert _formula_cells(tables.merge_csv(hostile_history)) == []


def test_the_pair_table_csv_is_safe(hostile_history) -> None:
    table = hostile_history.pair_table(0)
    assert _formula_cells(tables.pair_csv(table, hostile_history.tokenizer)) == []


def test_the_compression_csv_is_safe() -> None:
    curves = pd.DataFrame({column: ["=evil"] for column in compression.CURVE_COLUMNS})
    assert _formula_cells(compression.curves_csv(curves)) == []
