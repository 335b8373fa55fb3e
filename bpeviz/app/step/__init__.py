"""The Step page's view: a training run stepped through in the browser, a Streamlit component
around :func:`bpeviz.web.script`. It may import every layer below the app and the app's other
packages, with no import cycle (``tests/test_layers.py``).
"""
