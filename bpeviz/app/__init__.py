"""The app layer: what the Streamlit pages compute and draw, kept out of the engine.

Modules here may use pandas and Altair; only the Streamlit-facing ones import ``streamlit``.
The engine (``bpeviz`` itself) never imports anything from here.
"""
