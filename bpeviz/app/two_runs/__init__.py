"""The Two runs page's parts: where two training runs of one text part (``parting``), the page's
state and presets (``state``) and the words that explain it (``view``). It may import every
layer below the app and the app's other packages, with no import cycle
(``tests/test_layers.py``).
"""
