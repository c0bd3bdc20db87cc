"""The page every report is: one HTML file with its style and its little
script inline, nothing fetched from anywhere; readable in light and dark mode
and on paper. Helpers to write numbers, cells and tables into it."""

from __future__ import annotations

import html
import math
import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from agentmetrics._base._files import atomic_write

__all__ = ["esc", "num", "p_value", "page", "pct", "section", "table", "write_page"]

_STYLE = """
:root{--bg:#fff;--fg:#1d2330;--muted:#5b6475;--line:#d9dde5;--panel:#f5f7fa;
--bad:#b3261e;--bad-bg:#fde7e6;--good:#1b6e3a;--good-bg:#e3f4e8;--warn:#8a5a00;
--bar:#4c72b0;--accent:#c44e52;--chg-bg:#fff2cc}
@media (prefers-color-scheme:dark){:root{--bg:#15181e;--fg:#e6e9ef;--muted:#9aa3b2;
--line:#343a46;--panel:#1e232b;--bad:#ff8a80;--bad-bg:#4a1f1d;--good:#7fd49b;
--good-bg:#173825;--warn:#f0c060;--bar:#7da2e0;--accent:#ff7b7f;--chg-bg:#4a3d12}}
*{box-sizing:border-box}
body{margin:0;padding:24px 32px;background:var(--bg);color:var(--fg);
font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
h1{font-size:22px;margin:0 0 4px}h2{font-size:18px;margin:28px 0 8px;
border-bottom:1px solid var(--line);padding-bottom:4px}h3{font-size:15px;margin:18px 0 6px}
.muted,caption{color:var(--muted)}caption{text-align:left;padding:4px 0;font-size:13px}
table{border-collapse:collapse;margin:6px 0 12px;font-variant-numeric:tabular-nums}
th,td{border:1px solid var(--line);padding:3px 8px;vertical-align:top;text-align:left}
th{background:var(--panel);cursor:pointer;user-select:none;white-space:nowrap}
td.n{text-align:right;white-space:nowrap}
.bad{color:var(--bad)}.good{color:var(--good)}.warn{color:var(--warn)}
tr.error td{background:var(--bad-bg)}
.verdict{font-weight:600;padding:1px 6px;border-radius:4px;white-space:nowrap}
.verdict.worse{background:var(--bad-bg);color:var(--bad)}
.verdict.better{background:var(--good-bg);color:var(--good)}
.charts{display:flex;flex-wrap:wrap;gap:16px}
.trend-grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(360px,1fr));gap:16px;
align-items:start}.trend-grid figure svg{width:100%;height:auto;display:block}
figure{margin:0;background:var(--panel);border:1px solid var(--line);padding:8px;border-radius:6px}
figcaption{font-size:13px;color:var(--muted)}
svg text{fill:var(--fg);font-size:11px}svg .bar{fill:var(--bar)}
svg .threshold{stroke:var(--accent);stroke-width:2;stroke-dasharray:4 3}
svg .axis{stroke:var(--muted);stroke-width:1}svg .zero{stroke:var(--muted);stroke-dasharray:3 3}
svg .point{fill:var(--bar)}svg .whisker{stroke:var(--bar);stroke-width:2}
svg .line{fill:none;stroke:var(--bar);stroke-width:1.5}
.seq{display:grid;grid-template-columns:1fr 1fr;gap:2px 12px;font:12px/1.4 ui-monospace,
SFMono-Regular,Menlo,Consolas,monospace;min-width:340px}
.seq .head{color:var(--muted);font-family:system-ui,sans-serif}
.seq span{padding:0 3px;border-radius:3px;overflow-wrap:anywhere}
.seq .missed{background:var(--bad-bg);color:var(--bad)}
.seq .extra{background:var(--chg-bg)}
.seq .gap{color:var(--muted)}
.reason{max-width:520px;overflow-wrap:anywhere}
details.case-detail{max-width:520px;margin-top:4px}details.case-detail summary{cursor:pointer;
color:var(--muted);font-size:12px}details.case-detail dd{white-space:pre-wrap}
.headline{font-size:16px;font-weight:600;background:var(--bad-bg);border-left:4px solid
var(--bad);padding:8px 12px;margin:10px 0;max-width:60em}
.verdicts{font-size:16px;margin:10px 0;max-width:70em}
.lead{display:flex;flex-wrap:wrap;gap:8px 24px;margin:10px 0;padding:8px 12px;
background:var(--panel);border-radius:6px}.lead div{min-width:12em}
.lead b{font-size:17px;font-variant-numeric:tabular-nums}
.note{background:var(--panel);border-left:3px solid var(--line);padding:6px 10px;margin:8px 0}
.filter{margin:6px 0;padding:4px 8px;width:320px;max-width:100%;background:var(--bg);
color:var(--fg);border:1px solid var(--line);border-radius:4px}
dl.prov{display:grid;grid-template-columns:max-content 1fr;gap:2px 16px}dl.prov dt{color:var(--muted)}
dl.prov dd{margin:0;overflow-wrap:anywhere}
.scroll{overflow-x:auto;max-width:100%}
code{font:12px ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
@media print{body{padding:0;font-size:11px}.filter{display:none}th{cursor:auto}
h2{break-after:avoid}tr,figure{break-inside:avoid}.scroll{overflow:visible}
:root{--bg:#fff;--fg:#000;--panel:#f3f3f3}}
/* run browser (report/_browser.py) */
table.runs{font-size:13px;width:100%}table.runs th{vertical-align:bottom}
table.runs th.m{white-space:normal;overflow-wrap:break-word}
table.runs td.label{min-width:9em;max-width:15em;overflow-wrap:anywhere}
table.runs td.config{max-width:12em;overflow-wrap:anywhere;font-size:12px}
table.runs td.when{white-space:nowrap}.nolink{font-size:12px}
.runs-grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(340px,1fr));gap:16px}
.runs-grid svg{width:100%;height:auto;display:block}svg .tick{font-size:10px}
.runs-compare{font-weight:600;margin:0 8px}.runs-compare[aria-disabled]{color:var(--muted);
pointer-events:none}.runs-command{white-space:pre-wrap;overflow-wrap:anywhere;
background:var(--panel);padding:6px 10px;margin:6px 0}
"""

# Sorting by a click on a column head and filtering rows by text: the only
# script, and the page reads the same without it.
_SCRIPT = """
(function(){
function key(td){var v=td.getAttribute('data-v');if(v===null)v=td.textContent;
var f=parseFloat(v);return isNaN(f)||!/^\\s*[-+]?[0-9.]/.test(v)?v.toLowerCase():f}
document.querySelectorAll('table.sortable th').forEach(function(th,i){
th.addEventListener('click',function(){var t=th.closest('table'),b=t.tBodies[0];
var asc=th.getAttribute('data-dir')!=='asc';th.setAttribute('data-dir',asc?'asc':'desc');
var rows=Array.prototype.slice.call(b.rows);rows.sort(function(x,y){
var a=key(x.cells[i]),c=key(y.cells[i]);if(typeof a!==typeof c){a=String(a);c=String(c)}
return (a<c?-1:a>c?1:0)*(asc?1:-1)});rows.forEach(function(r){b.appendChild(r)})})});
document.querySelectorAll('input.filter').forEach(function(box){
box.addEventListener('input',function(){var q=box.value.toLowerCase();
var t=document.getElementById(box.getAttribute('data-for'));
Array.prototype.forEach.call(t.tBodies[0].rows,function(r){
r.style.display=r.textContent.toLowerCase().indexOf(q)<0?'none':''})})});
document.addEventListener('click',function(e){var a=e.target.closest?e.target.closest('a.drill'):null;
if(!a)return;var tool=a.getAttribute('data-tool'),shown=0,note=document.getElementById('drill-note');
document.querySelectorAll('table.failures tbody tr').forEach(function(r){
var ok=tool===null||(r.getAttribute('data-tools')||'').indexOf(' '+tool+' ')>=0;
r.style.display=ok?'':'none';if(ok)shown++});document.querySelectorAll('input.filter').forEach(
function(box){box.value=''});if(note){note.hidden=tool===null;note.firstChild.textContent=
tool===null?'':'Showing the '+shown+' failing case'+(shown===1?'':'s')+' that call or expect '+tool+'. '}});
document.documentElement.setAttribute('data-ready','1');
})();
// run browser (report/_browser.py): two runs picked, their comparison or its command
(function(){var t=document.getElementById('runs');if(!t)return;
var link=document.getElementById('runs-compare'),note=document.getElementById('runs-compare-note'),
cmd=document.getElementById('runs-command');function at(e,n){return e.getAttribute(n)}
function update(){var p=Array.prototype.filter.call(t.querySelectorAll('input.pick'),
function(b){return b.checked});link.removeAttribute('href');link.setAttribute('aria-disabled','true');
cmd.hidden=true;if(p.length!==2){note.textContent=p.length>2?'pick only two runs':
'pick two runs to compare them';return}var a=p[0],b=p[1];
if(+at(a,'data-id')>+at(b,'data-id')){a=p[1];b=p[0]}var row=b.closest('tr'),cmp=at(row,'data-cmp');
if(at(row,'data-prev')!==at(a,'data-id'))cmp=at(t,'data-every')&&at(a,'data-path')&&
at(b,'data-path')?at(link,'data-href')+'/compare-'+at(a,'data-id')+'-'+at(b,'data-id')+'.html':null;
if(cmp){link.setAttribute('href',cmp);
link.removeAttribute('aria-disabled');note.textContent=at(b,'data-name')+' against '+at(a,'data-name');
return}if(!at(a,'data-path')||!at(b,'data-path')){note.textContent=
'a run picked has no saved file, so there is nothing to compare';return}
note.textContent='no page is written for this pair; make it with this command, run in the folder of this page:';
cmd.textContent='agentmetrics compare '+at(a,'data-path')+' '+at(b,'data-path')+' --html '+
at(link,'data-dir')+'/compare-'+at(a,'data-id')+'-'+at(b,'data-id')+'.html';cmd.hidden=false}
t.addEventListener('change',update);update()})();
"""


def esc(value: object) -> str:
    """``value`` as HTML text (quotes escaped too: safe in attributes)."""
    return html.escape(str(value), quote=True)


def num(value: Any, digits: int = 3) -> str:
    """A number as a report shows it; NaN and None as a dash."""
    if value is None:
        return "\u2013"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return f"{value:,}"
    number = float(value)
    if math.isnan(number):
        return "\u2013"
    return f"{number:.{digits}f}"


def pct(value: Any) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "\u2013"
    return f"{100 * float(value):.1f}%"


def p_value(value: float) -> str:
    if math.isnan(value):
        return "\u2013"
    return "&lt; 0.0001" if value < 1e-4 else f"{value:.3g}"


def _cell(value: Any) -> str:
    """One ``<td>``: numbers right-aligned with their exact value kept for
    sorting; a pre-rendered cell is a ``(html, sort_value, css_class)`` triple."""
    if isinstance(value, tuple) and len(value) == 3:
        markup, sort_value, css = value
        attributes = "" if sort_value is None else f' data-v="{esc(sort_value)}"'
        attributes += f' class="{css}"' if css else ""
        return f"<td{attributes}>{markup}</td>"
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return f'<td class="n" data-v="{esc(value)}">{num(value)}</td>'
    return f"<td>{esc(value)}</td>"


def table(columns: Sequence[str], rows: Iterable[Sequence[Any]], *, caption: str = "",
          table_id: str | None = None, row_classes: Sequence[str] | None = None,
          css: str = "sortable", row_data: Sequence[Mapping[str, str]] | None = None) -> str:
    """A sortable table; cells are escaped unless given as ``(html, sort, class)``;
    ``row_data``: per row, ``data-*`` attributes (names and values escaped)."""
    head = "".join(f"<th>{esc(column)}</th>" for column in columns)
    body = []
    for index, row in enumerate(rows):
        kind = row_classes[index] if row_classes is not None else ""
        data = "" if row_data is None else "".join(
            f' data-{esc(name)}="{esc(value)}"' for name, value in row_data[index].items())
        opening = f'<tr class="{kind}"{data}>' if kind else f"<tr{data}>"
        body.append(opening + "".join(_cell(value) for value in row) + "</tr>")
    ident = f' id="{esc(table_id)}"' if table_id else ""
    cap = f"<caption>{esc(caption)}</caption>" if caption else ""
    return (f'<div class="scroll"><table class="{css}"{ident}>{cap}<thead><tr>{head}</tr>'
            f"</thead><tbody>{''.join(body)}</tbody></table></div>")


def section(title: str, body: str, *, section_id: str) -> str:
    return f'<section id="{esc(section_id)}"><h2>{esc(title)}</h2>{body}</section>'


def page(title: str, subtitle: str, sections: Sequence[str], *, headline: str = "") -> str:
    """The whole document; ``headline``, markup under the title, for what a
    reader must know before any number (a report of nothing says so there)."""
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            "<meta name=\"color-scheme\" content=\"light dark\">"
            "<meta name=\"generator\" content=\"agentmetrics\">"
            f"<title>{esc(title)}</title><style>{_STYLE}</style></head><body>"
            f"<header><h1>{esc(title)}</h1><p class=\"muted\">{subtitle}</p>{headline}</header>"
            f"<main>{''.join(sections)}</main><script>{_SCRIPT}</script></body></html>\n")


def write_page(path: str | os.PathLike[str], text: str) -> Path:
    """Write ``text`` to ``path`` whole or not at all (a temporary file beside
    it, then renamed), so a reader never opens half a report. The file gets
    the permissions a plain write would give it: the user's umask for a new
    file (0644 under the usual 022), the old file's when it replaces one; a
    CI uploader or a web server running as another user can read it."""
    target = Path(path)
    with atomic_write(target) as (out, _):
        out.write(text.encode("utf-8", "backslashreplace"))
    return target
