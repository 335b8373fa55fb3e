"""The one stylesheet for every span, card and trace, with its presentation-mode variant and
the narrow-window rules; injected once per run by the frame.

It also gives Streamlit's sidebar page links a focus ring a keyboard user can see: Streamlit's
own is a faint background change (about 1.1:1 against the sidebar; WCAG 2.4.7). And the
chosen segment of a segmented control gets a ✓, as the step view's Before/After do: Streamlit
shows it by colour alone (WCAG 1.4.1). Wrapped code breaks long runs too, so that nothing
scrolls sideways at 320 CSS px (WCAG 1.4.10).
"""

from __future__ import annotations

from bpeviz.web import stylesheets

# Below this width (the main area's, sidebar or not) side-by-side panes stack; see widgets.columns.
STACK_BELOW_PX = 640
# Streamlit's header (stHeader: 60 px, over the main area's top as it scrolls): a phone's sticky
# step bar stops below it, where a tap reaches the bar and not the header.
HEADER_HEIGHT = "3.75rem"


def stylesheet(*, presentation: bool = False) -> str:
    """The ``<style>`` of the app: the views' stylesheets (``bpeviz/web``), the narrow-window
    rules, and in presentation mode bigger type and no chrome."""
    css = f"""{stylesheets()}
[data-testid="stSidebarNav"] a:focus-visible{{outline:3px solid #0072B2;outline-offset:-3px;}}
[data-testid="stButtonGroup"] button[aria-checked="true"]::before{{content:"✓";margin-right:.3em;}}
.bpe-step h2{{scroll-margin-top:0;}}
/* The step view is drawn in the browser: a rerun it asks for changes nothing in it, so it
   never fades as Streamlit fades a stale element (a quiz card showed, faded, came back). */
.st-key-step_view[data-stale="true"]{{opacity:1;transition:none;}}
/* the page starts below the opaque header (3.5rem let it cover a live class's top edge) */
.stMainBlockContainer{{padding-top:calc({HEADER_HEIGHT} + .25rem);}}
.stMain .bpe-step{{--bpe-bar-top:{HEADER_HEIGHT};}}
[data-testid="stCode"] code{{overflow-wrap:anywhere;}}
/* a following student's read-only settings: each name in small type over its value */
.bpe-class-settings dl{{margin:.2rem 0 0;padding:0;}}
.bpe-class-settings dt{{margin:.35rem 0 0;padding:0;font-size:.85rem;color:#4a4f57;}}
.bpe-class-settings dd{{margin:0;padding:0;font-weight:600;overflow-wrap:anywhere;}}
[class*="st-key-stack_"]{{container-type:inline-size;}}
@container (max-width:{STACK_BELOW_PX}px){{
 [class*="st-key-stack_"] [data-testid="stHorizontalBlock"]{{flex-wrap:wrap;}}
 [class*="st-key-stack_"] [data-testid="stColumn"]{{flex:1 1 100% !important;min-width:100%;}}
 [class*="st-key-stack_pairs"] [data-testid="stColumn"]{{flex:1 1 40% !important;min-width:40%;}}
}}
"""
    if presentation:
        css += """
:root{--bpe-text-size:1.45rem;--bpe-chip-size:2.6rem;--bpe-scroll-height:62vh;
 --bpe-card-height:0;--bpe-card-size:1.35rem;}
[data-testid="stToolbarActions"],[data-testid="stMainMenu"],[data-testid="stAppDeployButton"],
[data-testid="stDecoration"],[data-testid="stStatusWidget"]{display:none;}
.stMainBlockContainer{padding-top:2.2rem;}
.stMain h1{font-size:2.6rem;}
.stMain p,.stMain li,.stMain label{font-size:1.2rem;}
.stMain textarea,.stMain input{font-size:1.2rem;}
.stMain [data-testid="stMetricValue"] p{font-size:2.6rem;}
.stMain [data-testid="stMetricLabel"] p{font-size:1.15rem;}
.stMain [data-testid="stSliderThumbValue"],.stMain [data-testid="stSliderThumbValue"] p{
 font-size:1.15rem;}
.stMain code{font-size:1em;}
.stMain [data-testid="stTable"] :is(th,td){font-size:1.15rem;}
.bpe-read{font-size:1.15rem;}
.bpe-hex,.bpe-trace-label{font-size:max(.78em,1.15rem);}
.bpe-metric-label,.bpe-step h2,.bpe-step h3{font-size:1.3rem;}
.bpe-button,.bpe-field,.bpe-pace,.bpe-jump,.bpe-pair-table,.bpe-vocab-table{font-size:1.15rem;}
.bpe-card:has(.bpe-eq){display:grid;grid-template-columns:fit-content(55%) 1fr;
 column-gap:2rem;align-items:center;}
.bpe-card-title{grid-column:2;}
.bpe-card .bpe-eq{grid-column:1;grid-row:1/span 3;}
.bpe-card:has(.bpe-eq) p{grid-column:2;}
/* One 1280x720 screen holds the controls, a compact card and the first lines of the text:
   the key help is left to screen readers (a short line of it ends the options' row), the
   card grows only as its text needs, and the four numbers sit on one line each. Every label
   a class reads is at least 18 px. */
.bpe-step .bpe-keys-short{display:inline;margin-left:auto;}
.bpe-step .bpe-jump{width:5.5rem;}
.bpe-card{padding:6px 16px;}
/* The class quiz's card, compact: its title and score share a line, so a quiz slide's tokens
   still start on the first screen at 1280x720. */
.bpe-step .bpe-quiz{display:grid;grid-template-columns:1fr auto;column-gap:1rem;row-gap:.3rem;
 align-items:baseline;}
.bpe-step .bpe-quiz>*{grid-column:1/-1;margin:0;}
.bpe-step .bpe-quiz>.bpe-card-title{grid-column:1;grid-row:1;}
.bpe-step .bpe-quiz>.bpe-score{grid-column:2;grid-row:1;}
.bpe-step .bpe-quiz .bpe-choice{padding:.15rem .5rem;}
.bpe-metrics{display:flex;flex-wrap:wrap;justify-content:space-between;gap:.1rem 1.2rem;
 margin:.3rem 0;}
.bpe-metric{display:flex;align-items:baseline;column-gap:.5rem;}
.bpe-metric-value{font-size:1.6rem;}
.bpe-metric-label{font-size:1.15rem;}
.bpe-step h2,.bpe-step h3{margin:.4rem 0 .3rem;}
.bpe-text-pane{display:flex;flex-wrap:wrap;align-items:center;align-content:flex-start;
 column-gap:1.2rem;}
.bpe-text-pane>*{flex:1 1 100%;}
.bpe-text-pane>h2,.bpe-text-pane>.bpe-when,.bpe-text-pane>.bpe-legend-box{flex:0 1 auto;}
/* The legend and Show pieces' rule go under the text on a projector, where the teacher says
   them: above it they pushed a slide's first tokens below 720 px. */
.bpe-text-pane>.bpe-pieces-rule,.bpe-text-pane>.bpe-legend-box{order:1;}
.bpe-step-name,.bpe-step-label,.bpe-chipid,.bpe-legend,.bpe-legend .bpe-t,.bpe-metric-delta,
.bpe-step .bpe-caption,.bpe-chart-title,.bpe-node-note,.bpe-choice-count,.bpe-mark{
 font-size:1.15rem;}
.bpe-chart{max-width:none;}
.bpe-tick{font-size:16px;}
/* the live class's strip (its join panel folded) takes one thin line above the slide */
.bpe-class{padding:.1rem .8rem;margin:0;}
.bpe-class-row .bpe-button{padding:.1rem .6rem;}
"""
    return f"<style>{css}</style>"


# Presentation mode's Focus view of the Step page: the step controls, the card and the text in
# larger type, the text across the page; the counts, pair table, chart, vocabulary and
# WordPiece's paragraph on its rule go, and the page's name shrinks.
FOCUS_STYLE = """<style>
:root{--bpe-text-size:2.1rem;--bpe-scroll-height:58vh;}
.stMain h1{font-size:1.6rem;padding:0 0 .25rem;}
.bpe-step .bpe-panes{grid-template-columns:1fr;}
.bpe-step .bpe-table-pane,.bpe-step .bpe-vocab,.bpe-step .bpe-metrics{display:none;}
.bpe-step .bpe-rule{display:none;}
</style>"""
