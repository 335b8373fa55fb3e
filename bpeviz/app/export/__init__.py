"""The Export page's part: download payloads in each file format, the merge history as CSV, and
uploads read back (``files``). It may import every layer below the app and the app's other
packages, with no import cycle (``tests/test_layers.py``).
"""
