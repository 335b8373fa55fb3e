"""A guided lesson: its slides and their format (``slides``) and the bar above every page that
moves through them (``view``). It may import every layer below the app and the app's other
packages, with no import cycle (``tests/test_layers.py``).
"""
