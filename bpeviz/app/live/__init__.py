"""A live class in the app: starting or joining one, the teacher's controls and the class bar
(``live_class``), and the class's results to download (``results``). It may import every layer
below the app and the app's other packages, with no import cycle (``tests/test_layers.py``).
"""
