"""bpeviz: the Streamlit frame (placeholder until the app pages land)."""

import streamlit as st

st.set_page_config(page_title="bpeviz", page_icon="🧩", layout="wide")
st.title("bpeviz")
st.write("An interactive visualizer of Byte Pair Encoding.")
