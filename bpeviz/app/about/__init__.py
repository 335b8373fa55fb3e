"""The About page's part: the bundled samples as a table, with where each text comes from
(``samples_table``). It may import every layer below the app and the app's other packages, with
no import cycle (``tests/test_layers.py``).
"""
