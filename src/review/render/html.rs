//! The HTML page: the SVG inline, pan and zoom, search by name or type, a click shows the
//! layer's attributes, ports and constant values. Loads nothing by URL.

use super::Picture;

/// The SVG's own style (also used when the SVG is opened alone).
pub const SVG_STYLE: &str = "\
.irc-graph{font-family:'DejaVu Sans Mono',ui-monospace,monospace;font-size:12px}\
.irc-graph text{fill:#222}\
.layer>rect{fill:#f4f6fb;stroke:#5b6b8c;stroke-width:1}\
.layer text.op{font-weight:bold}\
.layer.input>rect{fill:#e3f2e1;stroke:#3c7d3a}\
.layer.output>rect{fill:#fdf0d8;stroke:#a5741a}\
.layer.const>rect{fill:#f2f2f2;stroke:#aaa;stroke-dasharray:2 2}\
.layer.const text{font-size:10px;fill:#555}\
.layer.inline text{font-size:10px;fill:#666}\
.layer.inline.hit text,.layer.inline.sel text{fill:#d50000;font-weight:bold}\
.layer.block>rect{fill:#e8eefc;stroke:#3a5bb0;stroke-width:2}\
.layer.block.unchanged>rect{fill:#f7f7f7;stroke:#bbb;stroke-width:1}\
.layer.added>rect{fill:#dcf5dc;stroke:#1f8a1f;stroke-width:2}\
.layer.changed>rect{fill:#fff3c4;stroke:#b8860b;stroke-width:2}\
.layer.removed{opacity:.55}\
.layer.removed>rect{fill:#fde0e0;stroke:#c0392b;stroke-width:2;stroke-dasharray:5 3}\
.layer.hit>rect{stroke:#e65100;stroke-width:3}\
.layer.cur>rect{stroke:#e65100;stroke-width:5}\
.layer.sel>rect{stroke:#d50000;stroke-width:4}\
.body>rect.frame{fill:#fff;fill-opacity:.6;stroke:#8a94a8;stroke-dasharray:4 2}\
.body>text.tag{font-size:10px;fill:#667}\
.edge path{fill:none;stroke:#7c8799;stroke-width:1.2}\
.edge.long path{stroke-dasharray:6 3;stroke-opacity:.6}\
.edge.removed path{stroke:#c0392b;stroke-dasharray:5 3}\
.edge text{font-size:9px;fill:#4a5568}\
";

const PAGE_STYLE: &str = "\
html,body{margin:0;height:100%;font-family:sans-serif;font-size:13px}\
#bar{position:fixed;top:0;left:0;right:0;height:36px;display:flex;gap:8px;align-items:center;padding:0 10px;background:#24292f;color:#eee;z-index:2}\
#bar input{width:280px;padding:4px 6px}\
#bar .t{font-weight:bold;white-space:nowrap;overflow:hidden;text-overflow:ellipsis;max-width:40%}\
#view{position:fixed;top:36px;left:0;right:0;bottom:0;overflow:hidden;cursor:grab;background:#fff}\
#view svg{width:100%;height:100%}\
#info{position:fixed;top:44px;right:8px;width:380px;max-height:80%;overflow:auto;background:#fffffff0;border:1px solid #bbb;border-radius:6px;padding:8px 10px;display:none;z-index:2;box-shadow:0 2px 8px #0003}\
#info h3{margin:0 0 4px;font-size:14px;word-break:break-all}\
#info table{border-collapse:collapse;width:100%;font-family:monospace;font-size:11px}\
#info td{border-top:1px solid #eee;padding:2px 4px;vertical-align:top;word-break:break-all}\
#info .sec{margin-top:6px;font-weight:bold}\
#info button{margin-top:6px}\
#inner{position:fixed;top:60px;left:5%;right:5%;bottom:5%;background:#fff;border:2px solid #3a5bb0;overflow:auto;display:none;z-index:3}\
#inner .x{position:sticky;top:0;background:#e8eefc;padding:4px 8px}\
";

/// Everything the page does: pan/zoom by changing the viewBox, search (Enter for the next
/// match), details on click, a collapsed block's repetition in an overlay.
const SCRIPT: &str = r#"
(function(){
var data=JSON.parse(document.getElementById('irc-data').textContent);
var view=document.getElementById('view'),svg=view.querySelector('svg');
var W=+svg.getAttribute('width'),H=+svg.getAttribute('height');
svg.removeAttribute('width');svg.removeAttribute('height');
var vb={x:0,y:0,w:W,h:H};
function apply(){svg.setAttribute('viewBox',vb.x+' '+vb.y+' '+vb.w+' '+vb.h);}
function fit(){var r=view.getBoundingClientRect();var s=Math.max(W/r.width,H/r.height,0.02);
 s=Math.max(s,1);vb.w=r.width*s;vb.h=r.height*s;vb.x=(W-vb.w)/2;vb.y=0;apply();}
function scale(){var r=view.getBoundingClientRect();return vb.w/r.width;}
view.addEventListener('wheel',function(e){e.preventDefault();var r=view.getBoundingClientRect();
 var f=Math.pow(1.0015,e.deltaY);var px=vb.x+(e.clientX-r.left)*scale(),py=vb.y+(e.clientY-r.top)*scale();
 vb.w*=f;vb.h*=f;vb.x=px-(e.clientX-r.left)*scale();vb.y=py-(e.clientY-r.top)*scale();apply();},{passive:false});
var drag=null,moved=false;
view.addEventListener('mousedown',function(e){drag={x:e.clientX,y:e.clientY,vx:vb.x,vy:vb.y};moved=false;});
window.addEventListener('mousemove',function(e){if(!drag)return;var dx=e.clientX-drag.x,dy=e.clientY-drag.y;
 if(Math.abs(dx)+Math.abs(dy)>3)moved=true;vb.x=drag.vx-dx*scale();vb.y=drag.vy-dy*scale();apply();});
window.addEventListener('mouseup',function(){drag=null;});
function center(g){var b=g.getBBox(),m=g.getCTM(),root=svg.getCTM();
 var x=b.x,y=b.y;var p=svg.createSVGPoint();p.x=x;p.y=y;
 var q=p.matrixTransform(root.inverse().multiply(m));
 var r=view.getBoundingClientRect();var s=Math.min(scale(),1.5);
 vb.w=r.width*s;vb.h=r.height*s;vb.x=q.x+b.width/2-vb.w/2;vb.y=q.y+b.height/2-vb.h/2;apply();}
var layers=Array.prototype.slice.call(svg.querySelectorAll('g.layer'));
function name(g){var t=g.querySelector('title');return t?t.textContent.split('\n')[0]:'';}
var q=document.getElementById('q'),hits=document.getElementById('hits'),found=[],at=-1;
function search(){layers.forEach(function(g){g.classList.remove('hit');g.classList.remove('cur');});found=[];at=-1;
 var s=q.value.trim().toLowerCase();if(!s){hits.textContent='';return;}
 layers.forEach(function(g){var n=name(g).toLowerCase(),t=(g.getAttribute('data-type')||'').toLowerCase();
  if(n.indexOf(s)>=0||t===s||t.indexOf(s)>=0){g.classList.add('hit');found.push(g);}});
 hits.textContent=found.length+' found';if(found.length)next();}
function next(){if(!found.length)return;if(at>=0)found[at].classList.remove('cur');
 at=(at+1)%found.length;found[at].classList.add('cur');center(found[at]);
 hits.textContent=(at+1)+' / '+found.length;}
q.addEventListener('input',search);
q.addEventListener('keydown',function(e){if(e.key==='Enter'){next();e.preventDefault();}});
document.getElementById('fit').addEventListener('click',fit);
var info=document.getElementById('info'),inner=document.getElementById('inner');
function esc(s){return String(s).replace(/[&<>"]/g,function(c){return{'&':'&amp;','<':'&lt;','>':'&gt;','"':'&quot;'}[c];});}
function rows(list){return '<table>'+list.map(function(r){return '<tr>'+r.map(function(c){return '<td>'+esc(c)+'</td>';}).join('')+'</tr>';}).join('')+'</table>';}
function show(g){layers.forEach(function(x){x.classList.remove('sel');});g.classList.add('sel');
 var d=data[+g.getAttribute('data-k')]||{};var h='<h3>'+esc(d.name||'')+'</h3>';
 if(d.type==='block'){h+='<div>repeated block: '+d.period+' run-time layers \u00d7 '+d.reps+' ('+d.layers+' layers in all)</div>';
  h+='<div class="sec">ops per repetition</div>'+rows(d.ops);
  h+='<button id="expand">show one repetition</button>';}
 else{h+='<div>'+esc(d.type)+' '+esc(d.version||'')+' (id '+d.id+')'+(d.removed?' \u2014 removed (in A only)':'')+'</div>';
  if(d.changes)h+='<div class="sec">changed</div>'+rows(d.changes.map(function(c){return[c];}));
  if(d.attrs&&d.attrs.length)h+='<div class="sec">attributes</div>'+rows(d.attrs);
  if(d.inputs&&d.inputs.length)h+='<div class="sec">inputs</div>'+rows(d.inputs);
  if(d.outputs&&d.outputs.length)h+='<div class="sec">outputs</div>'+rows(d.outputs);
  if(d.value)h+='<div class="sec">value</div><div style="font-family:monospace;word-break:break-all">'+esc(d.value)+'</div>';
  if(d.members)h+='<div class="sec">constant subgraph</div>'+rows(d.members);}
 info.innerHTML=h;info.style.display='block';
 var b=document.getElementById('expand');if(b)b.addEventListener('click',function(){
  inner.innerHTML='<div class="x"><button id="close">close</button> one repetition of '+esc(d.name)+'</div>'+d.inner;
  inner.style.display='block';document.getElementById('close').addEventListener('click',function(){inner.style.display='none';});});}
layers.forEach(function(g){g.addEventListener('click',function(e){if(moved)return;e.stopPropagation();show(g);});});
view.addEventListener('click',function(){if(!moved){info.style.display='none';layers.forEach(function(x){x.classList.remove('sel');});}});
fit();
window.ircReady=true;
})();
"#;

/// A JSON value safe inside `<script>`: no `</` closes the element early.
fn script_json(v: &[serde_json::Value]) -> String {
    serde_json::to_string(v)
        .unwrap_or_else(|_| "[]".into())
        .replace("</", "<\\/")
        .replace("<!--", "<\\!--")
}

pub fn page(p: &Picture) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>{title} — irc render</title>\n<style>{PAGE_STYLE}</style>\n</head><body>\n<div id=\"bar\"><span class=\"t\">{title}</span><input id=\"q\" type=\"search\" placeholder=\"search a layer by name or type\" autocomplete=\"off\"><span id=\"hits\"></span><button id=\"fit\">fit</button><span>{boxes} boxes, {layers} layers</span></div>\n<div id=\"view\">\n{svg}</div>\n<div id=\"info\"></div><div id=\"inner\"></div>\n<script type=\"application/json\" id=\"irc-data\">{json}</script>\n<script>{SCRIPT}</script>\n</body></html>\n",
        title = super::esc(&p.title),
        boxes = p.summary.boxes,
        layers = p.summary.layers,
        svg = p.svg,
        json = script_json(&p.details),
    )
}
