"""The app layer: everything the Streamlit pages (``app.py``, ``app_pages/``) draw, one package
per page (``step``, ``tokenize``, ``compression``, ``compare``, ``two_runs``, ``export``,
``about``), the guided ``lesson`` and the ``live`` class, above the ``frame`` every page shares
(session state, sidebar, training cache, widgets) and the ``shared`` pieces several pages draw.
It may import every layer of bpeviz (the engine, formats, real tokenizers, records, ``web`` and
the classroom), and nothing imports it. pandas, Altair and Streamlit are imported only here, and
Streamlit only by the modules listed in ``tests/test_import.py``.
"""
