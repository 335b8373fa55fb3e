"""Two training runs: the sidebar's text under settings A and B, merge by merge."""


import streamlit as st

from bpeviz.app.frame.run_settings import Message, check_settings, min_vocab
from bpeviz.app.frame.state import current_settings, current_text, presentation_mode
from bpeviz.app.frame.training import current_history, history_key
from bpeviz.app.frame.unigram_runs import unigram_text
from bpeviz.app.frame.widgets import caption, columns, show_chart, show_messages, show_table
from bpeviz.app.shared.token_view import show_tokens
from bpeviz.app.two_runs import parting as runs
from bpeviz.app.two_runs import state as runs_state
from bpeviz.app.two_runs import view as runs_view
from bpeviz.app.two_runs.across_view import show_across, train_run
from bpeviz.app.two_runs.chart import RUNS_CHART_HEIGHT, curves_spec
from bpeviz.app.two_runs.compared import compared
from bpeviz.engine.algorithms import ALGORITHM_REGISTRY, ALGORITHMS
from bpeviz.engine.config import TrainingConfig
from bpeviz.engine.pretokenize import PRETOKENIZER_REGISTRY
from bpeviz.engine.readable import counted
from bpeviz.engine.tie_rules import TIE_BREAKS, TIE_RULES
from bpeviz.engine.wordpiece import SCORE_RULES

MAX_SHOWN_TOKENS = 3_000
DEFAULTS = runs_state.DEFAULTS
PRETOKENIZER_HELP = "; ".join(f"**{p.name}**: {p.help}" for p in PRETOKENIZER_REGISTRY.values())
TIE_RULE_HELP = "; ".join(f"**{name}**: {rule.description}" for name, rule in TIE_RULES.items())
ALGORITHM_HELP = "; ".join(f"**{a.title}**: {a.description}" for a in ALGORITHM_REGISTRY.values())
SCORE_RULE_HELP = (
    "**score**: the textbook's, the pair with the best count(ab) / (count(a) × count(b)); "
    "**frequency**: the most frequent pair, what the tokenizers library's WordPieceTrainer does."
)


st.title("Two training runs")
st.markdown(
    "The sidebar's text, trained twice: with settings **A** and with settings **B**, each by "
    "its own algorithm (BPE, WordPiece or Unigram). Change one setting and see which merge is "
    "the first to differ, which merges only one run makes, and how the compression changes."
)
with st.container(horizontal=True, gap="small", key="runs_presets"):
    for item in runs_state.PRESETS:
        st.button(
            item.label, key=f"runs_preset_{item.key}", on_click=runs_state.apply_preset,
            args=(st.session_state, item.key),
        )

text = current_text()
if text is None:
    current_history()  # says why there is no text
    st.stop()

sidebar = current_settings()
chosen: dict[str, TrainingConfig] = {}
panes = columns(2, key="runs_settings", gap="medium")
for pane, name in zip(panes, runs.RUN_NAMES, strict=True):
    default = DEFAULTS[name]
    with pane, st.container(border=True):
        st.markdown(f"**Run {name}**")
        algorithm = st.selectbox(  # its value is the link's (runs_b_algo=unigram)
            "Algorithm",
            ALGORITHMS,
            index=ALGORITHMS.index(default.algorithm),
            key=runs_state.widget_key(name, "algo"),
            bind="query-params",
            on_change=runs_state.fit_run,
            args=(st.session_state, name),
            help=ALGORITHM_HELP,
        )
        runs_state.fit_run(st.session_state, name)  # a link's pre-tokenizer, say
        info = ALGORITHM_REGISTRY.get(str(algorithm), ALGORITHM_REGISTRY["bpe"])
        # What an algorithm does not use is left out, not greyed (grey labels fail contrast).
        if info.name == "wordpiece":
            st.selectbox(
                "WordPiece rule",
                SCORE_RULES,
                index=SCORE_RULES.index(default.score_rule),
                key=runs_state.widget_key(name, "wprule"),
                bind="query-params",
                help=SCORE_RULE_HELP,
            )
        pretokenizers = list(info.pretokenizers)
        for label, options, field, chosen_now, about in (
            ("Pre-tokenizer", pretokenizers, "pretok", default.pretokenizer, PRETOKENIZER_HELP),
            ("Tie rule", TIE_BREAKS, "tie", default.tie_break, TIE_RULE_HELP),
        ):
            if field == "tie" and info.name == "unigram":
                st.caption("Unigram has no tie rule: equal costs go by probability.")
                continue
            st.selectbox(
                label,
                options,
                index=options.index(chosen_now) if chosen_now in options else 0,
                key=runs_state.widget_key(name, field),
                bind="query-params",
                help=about,
            )
        st.number_input(
            "Vocab size",
            min_value=min_vocab(info.name),
            value=default.vocab_size,
            step=1,
            key=runs_state.widget_key(name, "vocab"),
            bind="query-params",
        )
        st.checkbox(
            "</w> end-of-word marker",
            value=default.end_of_word,
            key=runs_state.widget_key(name, "eow"),
            disabled=st.session_state.get(runs_state.widget_key(name, "pretok")) != "words"
            or info.name != "bpe",
            bind="query-params",
        )
    chosen[name] = runs_state.run_settings(st.session_state, name, default)

histories = {}
unigram_keys: dict[str, str] = {}
for name, settings in chosen.items():
    full = runs_state.trained_settings(sidebar, settings)
    problems = [m for m in check_settings(full) if m.level == "error"]
    if full.algorithm == "unigram":  # text only, and at most so much of it
        problems += unigram_text(text)[1]
    if problems:
        show_messages([Message("error", f"Run {name}: {m.text}") for m in problems])
        st.stop()
    with st.spinner(f"Training run {name}…"):
        try:
            histories[name], unigram_keys[name] = train_run(text, full)
        except ValueError as error:
            show_messages([Message("error", f"Run {name} cannot train: {error}.")])
            st.stop()
if not all(settings.is_bpe for settings in chosen.values()):
    show_across(str(text.data), histories, chosen, unigram_keys)
    st.stop()
history_a, history_b = histories["A"], histories["B"]
caption(
    f"{text.name} · {counted(len(history_a.text), 'byte')} · A: {chosen['A'].summary()} · "
    f"B: {chosen['B'].summary()}"
)

lesson = runs_state.matching_preset(
    sidebar.sample_key if text.source == "sample" else None, chosen["A"], chosen["B"]
)
if lesson is not None:
    st.info(lesson.lesson, icon=":material/school:")
pretokenizers = {name: settings.pretokenizer for name, settings in chosen.items()}
comparison = compared(histories, pretokenizers)  # made once for every session on these runs
merges_a, merges_b = comparison.merges["A"], comparison.merges["B"]
difference = runs.first_difference(merges_a, merges_b)
reason = runs_view.difference_reason(difference, chosen["A"], chosen["B"]) if difference else None
st.html(
    runs_view.difference_html(
        difference, merge_counts=(len(merges_a), len(merges_b)), reason=reason
    )
)

only_a, only_b = comparison.only["A"], comparison.only["B"]
cut_a, cut_b = comparison.cut["A"], comparison.cut["B"]
numbers = columns(4, key="runs_numbers", pairs=True)
numbers[0].metric("Merges in A", f"{len(merges_a):,}")
numbers[1].metric("Merges in B", f"{len(merges_b):,}")
numbers[2].metric("Only in A", f"{len(only_a):,}", help="Pairs of byte strings B never merges.")
numbers[3].metric("Only in B", f"{len(only_b):,}", help="Pairs of byte strings A never merges.")
for name, cut, merges, other in (("A", cut_a, merges_a, "B"), ("B", cut_b, merges_b, "A")):
    if cut:
        sentence = runs_view.crossing_sentence(
            name, len(cut), len(merges), other, chosen[other].pretokenizer
        )
        st.markdown(f"{sentence} The table of merges below marks them.")

st.header("Compression, merge by merge", anchor=False)
last = max(len(merges_a), len(merges_b))
if int(st.session_state.get(runs_state.KEY_STEP) or 0) > last:  # new settings, fewer merges
    st.session_state[runs_state.KEY_STEP] = last
step = st.slider(
    "Show the text after this many merges",
    min_value=0,
    max_value=max(last, 1),
    value=min(difference.step, last) if difference else last,
    key=runs_state.KEY_STEP,
    bind="query-params",
    disabled=last == 0,
)
step = min(int(step), last)
labelled = {f"{name}: {chosen[name].summary()}": histories[name] for name in histories}
present = presentation_mode()
show_chart(curves_spec(labelled, step=step, height=RUNS_CHART_HEIGHT[present], projector=present))
st.caption(
    "Bytes per token of the whole text after each merge, for both runs (higher means fewer "
    "tokens). The grey line is the step whose text is shown below."
)
st.markdown(
    "Each curve ends where its run stops. "
    + " ".join(
        runs_view.curve_end_sentence(name, h.merge_count, chosen[name].vocab_size, h.base)
        for name, h in histories.items()
    )
)

st.header(f"The text after {counted(step, 'merge')}", anchor=False)
segmentations = {
    name: history.segmentation(min(step, history.merge_count))
    for name, history in histories.items()
}
st.caption(
    "A token outlined in bold starts where the other run does not cut the text at this "
    "step. Hover a token for its id and bytes; click it to see how it was built."
)
text_panes = columns(2, key="runs_text", gap="medium")
for pane, (name, history), other in zip(text_panes, histories.items(), ("B", "A"), strict=True):
    shown = segmentations[name]
    with pane:
        st.markdown(f"**{name}**: {counted(len(shown), 'token')}")
        if history.merge_count < step:
            st.caption(f"Run {name} stopped after {counted(history.merge_count, 'merge')}.")
        hi = min(len(shown), MAX_SHOWN_TOKENS)
        if hi < len(shown):
            st.caption(f"Showing the first {hi:,} of {len(shown):,} tokens.")
        marks = runs_view.own_cut_marks(shown.starts[:hi], segmentations[other].starts)
        show_tokens(
            history.tokenizer,
            shown.ids[:hi],
            key=f"runs_spans_{name}",
            marks=marks,
            label=f"Run {name}: the text after {counted(step, 'merge')}, token by token",
            tokenizer_key=history_key(history),
        )

st.header("Merges only one run makes", anchor=False)
st.caption(
    "Merges are compared as bytes (their ids differ between runs). A token the other run "
    "also has, built from other parents, says so."
)
tables = columns(2, key="runs_only", gap="medium")
for pane, name, only, cut, other in (
    (tables[0], "A", only_a, cut_a, "B"),
    (tables[1], "B", only_b, cut_b, "A"),
):
    with pane:
        st.markdown(f"**Only in {name}**: {counted(len(only), 'merge')}")
        if not only:
            st.caption(f"Every merge of {name} is also made by the other run.")
            continue
        frame = comparison.tables[name]
        columns = list(runs.MERGE_COLUMNS)
        if not cut:
            columns.remove("crosses")
        show_table(
            frame,
            columns=columns,
            labels={"other_run": f"token in {other}?", "crosses": f"cut by {other}"},
            height=min(36 * (len(frame) + 1) + 2, 360),
            column_config={
                "merge": st.column_config.NumberColumn("merge", format="%d", width=60),
                "other_run": st.column_config.TextColumn(
                    f"token in {other}?", help=f"Does run {other} have this token at all?"
                ),
                "crosses": st.column_config.TextColumn(
                    f"cut by {other}",
                    help=f"Run {other}'s pre-tokenizer would cut this token in two.",
                ),
            },
        )
