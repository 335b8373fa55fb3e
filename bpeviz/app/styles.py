"""The one stylesheet for every span, card and trace, with its presentation-mode variant and
the narrow-window rules; injected once per run by the frame.

It also gives Streamlit's sidebar page links a focus ring a keyboard user can see: Streamlit's
own is a faint background change (about 1.1:1 against the sidebar; WCAG 2.4.7). And the
chosen segment of a segmented control gets a ✓, as the step view's Before/After do: Streamlit
shows it by colour alone (WCAG 1.4.1).
"""

from __future__ import annotations

from bpeviz.web import stylesheets

# Below this width (the main area's, sidebar or not) side-by-side panes stack; see widgets.columns.
STACK_BELOW_PX = 640


def stylesheet(*, presentation: bool = False) -> str:
    """The ``<style>`` of the app: the views' stylesheets (``bpeviz/web``), the narrow-window
    rules, and in presentation mode bigger type and no chrome."""
    css = f"""{stylesheets()}
[data-testid="stSidebarNav"] a:focus-visible{{outline:3px solid #0072B2;outline-offset:-3px;}}
[data-testid="stButtonGroup"] button[aria-checked="true"]::before{{content:"✓";margin-right:.3em;}}
.bpe-step h2{{scroll-margin-top:0;}}
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
 --bpe-card-height:10rem;--bpe-card-size:1.35rem;}
[data-testid="stToolbarActions"],[data-testid="stMainMenu"],[data-testid="stAppDeployButton"],
[data-testid="stDecoration"],[data-testid="stStatusWidget"]{display:none;}
.stMainBlockContainer{padding-top:2.2rem;}
.stMain h1{font-size:2.6rem;}
.stMain p,.stMain li,.stMain label{font-size:1.2rem;}
.stMain textarea{font-size:1.2rem;}
.stMain [data-testid="stMetricValue"] p{font-size:2.6rem;}
.stMain [data-testid="stMetricLabel"] p{font-size:1.15rem;}
.stMain [data-testid="stSliderThumbValue"],.stMain [data-testid="stSliderThumbValue"] p{
 font-size:1rem;}
.bpe-metric-value{font-size:2.6rem;}
.bpe-metric-label,.bpe-step h2,.bpe-step h3{font-size:1.3rem;}
.bpe-button,.bpe-field,.bpe-pair-table,.bpe-vocab-table{font-size:1.15rem;}
.bpe-card:has(.bpe-eq){display:grid;grid-template-columns:fit-content(55%) 1fr;
 column-gap:2rem;align-items:center;}
.bpe-card-title{grid-column:1/-1;}
.bpe-card .bpe-eq{grid-column:1;grid-row:2/span 3;}
.bpe-card:has(.bpe-eq) p{grid-column:2;}
"""
    return f"<style>{css}</style>"
