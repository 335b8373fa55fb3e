"""The Compare page's part: two tokenizers on one text, their counts, and where their token
boundaries differ (``boundaries``). It may import every layer below the app and the app's other
packages, with no import cycle (``tests/test_layers.py``).
"""
