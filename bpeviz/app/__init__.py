"""The app layer: session state, sidebar, training cache, step controls and the views.

Everything the Streamlit pages (``app.py``, ``app_pages/``) draw is built here. The engine
(``bpeviz``) never imports this package; pandas, Altair and Streamlit are imported only here,
and Streamlit only by the modules listed in ``tests/test_import.py``.
"""
