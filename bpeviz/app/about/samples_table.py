"""Data for the About page: the bundled samples as a table (where every text comes from)."""

from __future__ import annotations

import pandas as pd

from bpeviz.engine.samples import list_samples

SAMPLE_COLUMNS: tuple[str, ...] = ("key", "title", "language", "bytes", "licence", "source")


def samples_frame() -> pd.DataFrame:
    """One row per bundled sample, in ``sample_texts/samples.json`` order.

    >>> samples_frame().loc[0, ["key", "language"]].tolist()
    ['english', 'en']
    """
    rows = [
        (
            sample.key,
            sample.title,
            sample.language,
            len(sample.text.encode("utf-8")),
            sample.licence,
            sample.source,
        )
        for sample in list_samples()
    ]
    return pd.DataFrame(rows, columns=list(SAMPLE_COLUMNS))
