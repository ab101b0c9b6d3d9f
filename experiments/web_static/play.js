/* rummy-web's play page: the person's hand as cards to select (sorted by suit or by rank,
   the choice remembered in the browser), the moves the selection makes that are legal
   (and only those) as buttons, the draw by clicking the stock or the discard pile, a
   lay-off by clicking a meld. A move is posted as the form #move-form's action id. Canasta:
   suits do not tell moves apart (a 7 is any 7, a 2 any 2), the discard pile is taken by
   clicking it or with the cards selected that meld its top card. */
(function () {
  "use strict";
  var T = window.RummyTable;
  var view = JSON.parse(document.getElementById("view").textContent);
  var legal = JSON.parse(document.getElementById("legal").textContent);
  // the seat whose cards are buttons: the person's, while the game goes on
  var me = view.phase === "over" ? undefined : view.seats.findIndex(function (s) { return s.you; });
  var root = document.getElementById("table");
  var actions = document.getElementById("actions");
  var counter = document.getElementById("selected");
  var STORE = "rummy-web-sort";
  var sortBy = "suit";
  try { sortBy = window.localStorage.getItem(STORE) || "suit"; } catch (e) { /* no storage */ }
  var selected = [];  // the selected hand buttons
  var sent = false;
  var parts;

  var canasta = !!view.canasta;

  function isWild(c) { return view.wild.indexOf(c) >= 0; }

  /* Canasta: what tells cards apart in a move, the rank (a joker is a joker). */
  function rankOf(c) { return c === "JK" ? c : c[0]; }

  function sameRanks(a, b) {
    return a.map(rankOf).sort().join() === b.map(rankOf).sort().join();
  }

  /* Whether the cards `sel` are exactly the cards move `m` uses (JK: any wild card). */
  function uses(m, sel) {
    if (!m.cards.length || m.cards.length !== sel.length) { return false; }
    if (canasta) { return sameRanks(m.cards, sel); }
    var left = sel.slice(), jokers = 0;
    for (var i = 0; i < m.cards.length; i++) {
      var c = m.cards[i];
      if (c === "JK") { jokers++; continue; }
      var at = left.indexOf(c);
      if (at < 0) { return false; }
      left.splice(at, 1);
    }
    return left.length === jokers && left.every(isWild);
  }

  function canUse(c) {
    return legal.some(function (m) {
      if (canasta) { return m.cards.some(function (x) { return rankOf(x) === rankOf(c); }); }
      return m.cards.indexOf(c) >= 0 || (isWild(c) && m.cards.indexOf("JK") >= 0);
    });
  }

  function send(m) {
    if (sent) { return; }
    sent = true;
    document.getElementById("move-action").value = m.id;
    document.querySelectorAll("#table button, #actions button, #moves button").forEach(function (b) { b.disabled = true; });
    document.getElementById("move-form").submit();
  }

  function button(m) {
    var b = document.createElement("button");
    b.type = "button";
    b.className = "move";
    b.dataset.kind = m.kind;
    b.dataset.action = m.id;
    b.textContent = m.words;
    b.addEventListener("click", function () { send(m); });
    return b;
  }

  function selection() { return selected.map(function (b) { return b.dataset.card; }); }

  function update() {
    var sel = selection();
    var fit = legal.filter(function (m) { return uses(m, sel); });
    var free = legal.filter(function (m) {
      // (every way to take the pile is offered while no card is selected)
      return (!m.cards.length || (m.kind === "TakePile" && !sel.length)) &&
        m.kind !== "DrawStock" && m.kind !== "DrawDiscard" && fit.indexOf(m) < 0;
    });
    actions.replaceChildren();
    fit.concat(free).forEach(function (m) { actions.appendChild(button(m)); });
    var draws = legal.filter(function (m) { return m.kind === "DrawStock" || m.kind === "DrawDiscard" || m.kind === "TakePile"; });
    if (!fit.length && legal.length) {
      var hint = document.createElement("span");
      hint.className = "hint";
      hint.textContent = view.tiles && sel.length === 0 ? "select a tile to play it, or click the pool to draw" :
        draws.length && !sel.length ? "draw: click the stock or the discard pile" :
        sel.length ? "no legal move with " + sel.join(" ") : "select cards of your hand to see their moves";
      actions.appendChild(hint);
    }
    // the melds a single selected card lays off on (or swaps into): clickable
    parts.melds.forEach(function (box) {
      var m = fit.find(function (x) { return x.meld !== null && String(x.meld) === box.dataset.meld; });
      box.disabled = !m;
      box.classList.toggle("live", !!m);
      box.onclick = m ? function () { send(m); } : null;
    });
    if (counter) { counter.textContent = sel.length ? sel.length + " selected: " + sel.join(" ") : ""; }
  }

  function draw() {
    parts = T.render(root, view, { me: me, sort: sortBy });
    selected = [];
    var hand = root.querySelector(".seat.hand");
    if (hand) { hand.classList.toggle("idle", !parts.hand.some(function (b) { return canUse(b.dataset.card); })); }
    parts.hand.forEach(function (b) {
      b.disabled = !canUse(b.dataset.card);
      b.setAttribute("aria-pressed", "false");
      b.addEventListener("click", function () {
        var at = selected.indexOf(b);
        if (at >= 0) { selected.splice(at, 1); } else { selected.push(b); }
        b.classList.toggle("selected", at < 0);
        b.setAttribute("aria-pressed", String(at < 0));
        update();
      });
    });
    var stock = legal.find(function (m) { return m.kind === "DrawStock"; });
    if (parts.stock && stock) {
      parts.stock.disabled = false;
      parts.stock.classList.add("live");
      parts.stock.title = "draw from the stock";
      parts.stock.addEventListener("click", function () { send(stock); });
    }
    var takes = legal.filter(function (m) { return m.kind === "TakePile"; });
    if (parts.discard && takes.length) {  // Canasta: the whole pile
      var top = parts.discard;
      top.disabled = false;
      top.classList.add("live");
      top.title = takes.length === 1 ? takes[0].words : "take the discard pile";
      top.addEventListener("click", function () {
        var fit = takes.filter(function (m) { return m.cards.length ? uses(m, selection()) : !selected.length; });
        if (takes.length === 1 || fit.length === 1) { send(fit.length === 1 ? fit[0] : takes[0]); return; }
        var hint = document.createElement("span");
        hint.className = "hint";
        hint.textContent = "take the pile: pick one of the ways below, or select the cards to meld its top card with";
        actions.prepend(hint);
      });
    }
    parts.pile.forEach(function (b) {
      var m = legal.find(function (x) { return x.kind === "DrawDiscard" && String(x.depth) === b.dataset.depth; });
      if (!m) { return; }
      b.disabled = false;
      b.classList.add("live");
      b.title = m.words;
      b.addEventListener("click", function () { send(m); });
    });
    ["suit", "rank"].forEach(function (by) {
      var t = document.getElementById("sort-" + by);
      if (t) { t.classList.toggle("on", by === sortBy); t.setAttribute("aria-pressed", String(by === sortBy)); }
    });
    update();
  }

  ["suit", "rank"].forEach(function (by) {
    var t = document.getElementById("sort-" + by);
    if (!t) { return; }
    t.addEventListener("click", function () {
      sortBy = by;
      try { window.localStorage.setItem(STORE, by); } catch (e) { /* no storage */ }
      draw();
    });
  });
  var next = document.getElementById("next-round");
  if (next) {
    next.addEventListener("click", function () {
      document.getElementById("summary").hidden = true;
      root.scrollIntoView();
    });
  }
  var log = document.getElementById("log");
  log.scrollTop = log.scrollHeight;
  draw();
})();
