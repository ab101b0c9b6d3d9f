/* rummy-web's replay player: frames fetched as JSON (/games/<id>/frames.json, a chunk at a
   time), played in the page: play/pause, speed, step back and forward, jump to a round or
   to any move (the slider, the move list), and at each decision the agent's most likely
   moves with their probabilities where the agent gives them. */
(function () {
  "use strict";
  var T = window.RummyTable;
  var cfg = JSON.parse(document.getElementById("replay").textContent);
  var n = cfg.n, step = cfg.step, frames = {}, pending = {}, timer = null;
  var board = document.getElementById("board");
  var where = document.getElementById("where");
  var alts = document.getElementById("alts-body");
  var scoring = document.getElementById("scoring");
  var playBtn = document.getElementById("play");
  var speed = document.getElementById("speed");
  var round = document.getElementById("round");
  var slider = document.getElementById("slider");
  var log = document.getElementById("log");
  var items = log.querySelectorAll("li");
  var finalText = scoring.textContent;

  function chunkOf(k) { return Math.floor(k / cfg.chunk) * cfg.chunk; }

  function fetchChunk(start) {
    if (pending[start]) { return pending[start]; }
    pending[start] = fetch(cfg.frames + "?start=" + start + "&count=" + cfg.chunk, { credentials: "same-origin" })
      .then(function (r) {
        if (!r.ok) { throw new Error("frames " + start + ": " + r.status); }
        return r.json();
      })
      .then(function (data) {
        data.frames.forEach(function (f) { frames[f.k] = f; });
      })
      .catch(function (e) { delete pending[start]; throw e; });
    return pending[start];
  }

  function frame(k) {
    if (frames[k]) { return Promise.resolve(frames[k]); }
    return fetchChunk(chunkOf(k)).then(function () { return frames[k]; });
  }

  function link(id, k) {
    var a = document.getElementById(id);
    a.href = "?step=" + k;
    a.classList.toggle("disabled", k === step);
  }

  function showDecision(f) {
    alts.replaceChildren();
    var d = f.decision;
    if (!d) { alts.textContent = "the deal: no decision yet"; return; }
    var p = document.createElement("p");
    p.textContent = "player_" + d.seat + " (" + d.agent + ") chose \u201c" + d.move + "\u201d among " +
      d.legal + " legal move" + (d.legal === 1 ? "" : "s") + ".";
    alts.appendChild(p);
    if (!d.probs) {
      var q = document.createElement("p");
      q.className = "muted";
      q.textContent = d.legal > 1 ? "This agent gives no probabilities for its moves." : "The only legal move.";
      alts.appendChild(q);
      return;
    }
    var ol = document.createElement("ol");
    ol.id = "probs";
    d.probs.forEach(function (a) {
      var li = document.createElement("li");
      li.className = a.chosen ? "chosen" : "";
      li.textContent = a.words + ": " + (100 * a.p).toFixed(1) + "%" + (a.chosen ? " (chosen)" : "");
      var bar = document.createElement("span");
      bar.className = "bar";
      bar.style.width = Math.max(1, Math.round(100 * a.p)) + "%";
      li.appendChild(bar);
      ol.appendChild(li);
    });
    alts.appendChild(ol);
    var note = document.createElement("p");
    note.className = "muted";
    note.textContent = "the agent's probabilities of its most likely moves";
    alts.appendChild(note);
  }

  function show(f) {
    T.render(board, f.view, {});
    where.replaceChildren();
    if (f.k === 0) {
      where.textContent = "the deal (before move 1 of " + n + ")";
    } else {
      var d = f.decision;
      where.appendChild(document.createTextNode("move " + f.k + " of " + n + ": player_" + d.seat + " (" + d.agent + ") "));
      var b = document.createElement("b");
      b.id = "move";
      b.textContent = d.move;
      where.appendChild(b);
      where.appendChild(document.createTextNode(" \u00b7 round " + f.round));
    }
    showDecision(f);
    var text = f.k === n ? finalText || f.result : f.result;
    scoring.textContent = text || "";
    scoring.hidden = !text;
    items.forEach(function (li, i) { li.classList.toggle("here", i === f.k); });
    var here = items[f.k];
    if (here) { log.scrollTop = here.offsetTop - log.clientHeight / 2; }
    link("first", 0); link("prev", Math.max(step - 1, 0)); link("next", Math.min(step + 1, n)); link("last", n);
    document.getElementById("first").classList.toggle("disabled", step === 0);
    document.getElementById("prev").classList.toggle("disabled", step === 0);
    document.getElementById("next").classList.toggle("disabled", step === n);
    document.getElementById("last").classList.toggle("disabled", step === n);
    slider.value = step;
    board.dataset.step = step;
    history.replaceState(null, "", "?step=" + step);
    if (step + 1 <= n) { frame(Math.min(n, chunkOf(step) + cfg.chunk)).catch(function () {}); }  // the next chunk, ahead
  }

  function go(k) {
    k = Math.max(0, Math.min(n, k));
    step = k;
    return frame(k).then(function (f) { if (step === k) { show(f); } });
  }

  function delay() { return 1000 / (cfg.rate * (+speed.value || 1)); }

  function tick() {
    if (step >= n) { pause(); return; }
    go(step + 1).then(function () { if (timer !== null) { timer = setTimeout(tick, delay()); } });
  }

  function play() {
    if (step >= n) { step = 0; }
    playBtn.textContent = "\u275a\u275a pause";
    playBtn.classList.add("on");
    board.dataset.playing = "1";
    timer = setTimeout(tick, 0);
  }

  function pause() {
    if (timer !== null) { clearTimeout(timer); }
    timer = null;
    playBtn.textContent = "\u25b6 play";
    playBtn.classList.remove("on");
    board.dataset.playing = "";
  }

  function toggle() { if (timer === null) { play(); } else { pause(); } }

  var targets = { first: function () { return 0; }, prev: function () { return step - 1; },
    next: function () { return step + 1; }, last: function () { return n; } };
  Object.keys(targets).forEach(function (id) {
    document.getElementById(id).addEventListener("click", function (e) {
      e.preventDefault();
      pause();
      go(targets[id]());
    });
  });
  log.addEventListener("click", function (e) {
    var a = e.target.closest("a");
    if (!a) { return; }
    e.preventDefault();
    pause();
    go(+new URLSearchParams(a.getAttribute("href").slice(1)).get("step"));
  });
  playBtn.addEventListener("click", toggle);
  round.addEventListener("change", function () {
    if (round.value === "") { return; }
    pause();
    go(+round.value);
    round.value = "";
  });
  slider.addEventListener("input", function () { go(+slider.value); });
  document.addEventListener("keydown", function (e) {
    if (e.ctrlKey || e.altKey || e.metaKey || /^(INPUT|SELECT|TEXTAREA)$/.test(e.target.tagName)) { return; }
    var to = { ArrowLeft: step - 1, ArrowRight: step + 1, Home: 0, End: n }[e.key];
    if (to !== undefined) { e.preventDefault(); pause(); go(to); }
    if (e.key === " " && !/^(BUTTON|A)$/.test(e.target.tagName)) { e.preventDefault(); toggle(); }
  });
  go(step);
})();
