"""The one stylesheet for every span, card and trace, with its presentation-mode variant and
the narrow-window rules; injected once per run by the frame.
"""

from __future__ import annotations

from bpeviz.app.spans import PALETTE

# Below this width (the main area's, sidebar or not) side-by-side panes stack; see widgets.columns.
STACK_BELOW_PX = 640


def stylesheet(*, presentation: bool = False) -> str:
    """The ``<style>`` for every class above (bigger and bolder in presentation mode)."""
    text_size = "1.45rem" if presentation else "0.98rem"
    chip_size = "2.6rem" if presentation else "1.7rem"
    colours = "".join(
        f".bpe-c{i}{{background:{bg};border-color:{border};}}"
        for i, (bg, border) in enumerate(PALETTE)
    )
    css = f"""
.bpe-text{{font-family:"DejaVu Sans Mono","Noto Sans Mono CJK JP","Noto Sans CJK JP",
 ui-monospace,monospace;font-size:{text_size};line-height:2.05;color:#111;
 overflow-wrap:anywhere;}}
.bpe-scroll{{max-height:{"62vh" if presentation else "460px"};overflow-y:auto;
 padding:6px 8px;border:1px solid #c8c8c8;border-radius:6px;background:#fff;}}
.bpe-inline{{display:inline;line-height:1.9;}}
.bpe-t{{display:inline-block;border:1px solid #888;border-radius:3px;padding:0 2px;
 margin:1px 2px 1px 0;color:#111;white-space:pre-wrap;max-width:100%;overflow-wrap:anywhere;
 line-height:1.5;vertical-align:bottom;}}
{colours}
.bpe-hex{{font-size:.78em;color:#5b2a00;letter-spacing:-.02em;}}
.bpe-eow{{font-size:.68em;color:#444;margin-left:1px;}}
.bpe-special{{background:#fff;border:2px dashed #222;font-weight:600;}}
.bpe-special::before{{content:"special ";font-size:.62em;font-weight:400;color:#444;}}
.bpe-ps{{border:3px solid #000;border-right:1px dotted #000;margin-right:0;
 border-radius:4px 0 0 4px;}}
.bpe-pe{{border:3px solid #000;border-left:0;border-radius:0 4px 4px 0;}}
.bpe-new{{border:3px solid #000;font-weight:700;box-shadow:0 0 0 2px #fff inset;}}
.bpe-g{{display:inline-block;position:relative;padding-top:1.1em;margin:.15em 2px 0 0;
 white-space:nowrap;vertical-align:bottom;line-height:1.5;}}
.bpe-g::before{{content:attr(data-char);position:absolute;top:0;left:0;right:2px;
 text-align:center;font-size:.72em;line-height:1.3;color:#111;border-top:1px solid #777;}}
.bpe-card{{border:1px solid #bbb;border-radius:8px;padding:10px 16px;background:#fafafa;
 min-height:{"10rem" if presentation else "9.5rem"};color:#111;
 font-size:{"1.35rem" if presentation else "1rem"};}}
.bpe-card p{{margin:.35em 0;}}
.bpe-card-title{{font-weight:700;font-size:1.05em;margin-bottom:.25em;}}
.bpe-eq{{display:flex;flex-wrap:wrap;align-items:flex-start;gap:.5rem;margin:.3em 0 .4em;}}
.bpe-chipbox{{display:inline-flex;flex-direction:column;align-items:center;}}
.bpe-chip{{font-family:"DejaVu Sans Mono","Noto Sans Mono CJK JP",monospace;
 font-size:{chip_size};border:1px solid #888;border-radius:6px;padding:0 .3em;
 white-space:pre;line-height:1.35;}}
.bpe-chipid{{font-size:.8em;color:#333;}}
.bpe-op{{font-size:{chip_size};line-height:1.35;color:#222;}}
.bpe-tie{{background:#fff4d6;border-left:4px solid #B07A00;padding:.2em .5em;}}
.bpe-legend{{display:flex;flex-wrap:wrap;gap:.4rem 1.2rem;font-size:.85rem;color:#222;
 margin:.2rem 0 .4rem;align-items:center;}}
.bpe-legend .bpe-t{{font-size:.85rem;}}
.bpe-caption{{margin:0;color:#333;font-size:.95rem;}}
.bpe-trace{{font-size:{text_size};}}
.bpe-trace-row{{padding:.2rem 0 .3rem;border-bottom:1px solid #e4e4e4;}}
.bpe-trace-label{{display:block;font-family:sans-serif;font-size:.78em;color:#333;}}
[class*="st-key-stack_"]{{container-type:inline-size;}}
@container (max-width:{STACK_BELOW_PX}px){{
 [class*="st-key-stack_"] [data-testid="stHorizontalBlock"]{{flex-wrap:wrap;}}
 [class*="st-key-stack_"] [data-testid="stColumn"]{{flex:1 1 100% !important;min-width:100%;}}
 [class*="st-key-stack_pairs"] [data-testid="stColumn"]{{flex:1 1 40% !important;min-width:40%;}}
}}
"""
    if presentation:
        css += """
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
.bpe-card:has(.bpe-eq){display:grid;grid-template-columns:fit-content(55%) 1fr;
 column-gap:2rem;align-items:center;}
.bpe-card-title{grid-column:1/-1;}
.bpe-card .bpe-eq{grid-column:1;grid-row:2/span 3;}
.bpe-card:has(.bpe-eq) p{grid-column:2;}
"""
    return f"<style>{css}</style>"
