/* rummy-web's card table: draws a table view (the JSON of experiments/web.py's table_view)
   as HTML cards. RummyTable.render(root, view, opts) returns the elements the pages wire up:
   the seat's hand cards, the stock, the discard pile and the table melds. */
(function () {
  "use strict";
  document.documentElement.classList.remove("no-js");  // the controls that need scripts show
  var PIPS = { S: "\u2660", H: "\u2665", D: "\u2666", C: "\u2663" };
  var NAMES = { S: "spades", H: "hearts", D: "diamonds", C: "clubs" };
  var RANKS = "A23456789TJQK";
  var SUITS = "SHDC";

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) { e.className = cls; }
    if (text !== undefined && text !== null) { e.textContent = text; }
    return e;
  }

  function cardName(c) {
    if (c === "JK") { return "joker"; }
    var r = c[0] === "T" ? "10" : c[0];
    return r + " of " + NAMES[c[1]];
  }

  /* One card: a face ("7H", "JK"), or null for a card's back. A button when clickable. */
  function card(c, opts) {
    opts = opts || {};
    var e = el(opts.button ? "button" : "span", "card");
    if (opts.button) { e.type = "button"; }
    if (c === null) {
      e.className += " back";
      e.setAttribute("aria-label", "a hidden card");
      return e;
    }
    e.dataset.card = c;
    if (c === "JK") {
      e.className += " joker";
      e.appendChild(el("span", "r", "JK"));
      e.appendChild(el("span", "p", "\u2605"));
    } else {
      e.className += " s-" + c[1] + (c[1] === "H" || c[1] === "D" ? " red" : "");
      e.appendChild(el("span", "r", c[0] === "T" ? "10" : c[0]));
      e.appendChild(el("span", "p", PIPS[c[1]]));
    }
    if (opts.wild) { e.className += " wild"; }
    if (opts.known) { e.className += " known"; }
    e.title = cardName(c) + (opts.wild ? " (standing as a wild card)" : "") +
      (opts.known ? " (known to be held)" : "");
    e.setAttribute("aria-label", e.title);
    return e;
  }

  function key(c, by) {
    if (c === "JK") { return 999; }
    var r = RANKS.indexOf(c[0]), s = SUITS.indexOf(c[1]);
    return by === "rank" ? r * 4 + s : s * 13 + r;
  }

  function sortCards(cards, by) {
    return cards.slice().sort(function (a, b) { return key(a, by) - key(b, by); });
  }

  function row(cards, opts) {
    var box = el("div", "cards");
    cards.forEach(function (c, i) {
      box.appendChild(card(c, { wild: opts && opts.wild && opts.wild.indexOf(i) >= 0 }));
    });
    return box;
  }

  /* Draw `view` into `root`. opts.me: the seat whose hand is a row of buttons (play);
     opts.sort: "suit" or "rank". Returns {hand: [buttons], stock, discard, melds: [el]}. */
  function render(root, view, opts) {
    opts = opts || {};
    var out = { hand: [], stock: null, discard: null, pile: [], melds: [] };
    root.replaceChildren();
    var head = el("div", "head");
    head.appendChild(el("b", null, view.preset + " \u00b7 " + view.players + " players \u00b7 round " + view.round));
    if (view.contract) { head.appendChild(el("span", "contract", "contract: " + view.contract)); }
    if (view.phase === "over") { head.appendChild(el("span", null, "the game is over")); }
    root.appendChild(head);
    var unit = view.tiles ? "tile" : "card";
    view.seats.forEach(function (s) {
      var box = el("div", "seat" + (s.turn ? " turn" : "") + (s.seat === opts.me ? " hand" : ""));
      box.dataset.seat = s.seat;
      var who = el("div", "who");
      who.appendChild(el("b", null, "player_" + s.seat + (s.you ? " (you)" : "")));
      var info = s.name + " \u00b7 " + s.count + " " + unit + (s.count === 1 ? "" : "s") +
        " \u00b7 total " + s.total;
      if (view.tiles || view.contract) { info += s.opened ? " \u00b7 down" : " \u00b7 not down"; }
      if (!s.active) { info += " \u00b7 out of the match"; }
      if (s.turn) { info += " \u00b7 to " + view.phase; }
      who.appendChild(el("span", "info", info));
      box.appendChild(who);
      var cards = el("div", "cards");
      if (s.hand !== null) {
        var hand = opts.sort ? sortCards(s.hand, opts.sort) : s.hand;
        hand.forEach(function (c) {
          var b = card(c, { button: s.seat === opts.me });
          if (s.seat === opts.me) { out.hand.push(b); }
          cards.appendChild(b);
        });
      } else {
        s.known.forEach(function (c) { cards.appendChild(card(c, { known: true })); });
        for (var i = s.known.length; i < s.count; i++) { cards.appendChild(card(null)); }
      }
      box.appendChild(cards);
      root.appendChild(box);
    });
    var table = el("div", "melds");
    var title = view.tiles ? "the table (one way to split it)" : "the table";
    if (!view.melds.length) { table.appendChild(el("span", "empty", view.tiles ? "no tiles on the table" : "no melds on the table")); }
    view.melds.forEach(function (m, i) {
      var box = el(opts.me !== undefined && m.index !== null ? "button" : "div", "meld");
      if (box.tagName === "BUTTON") { box.type = "button"; box.disabled = true; }
      box.dataset.meld = m.index === null ? i : m.index;
      box.appendChild(row(m.cards, { wild: m.wild }));
      var label = m.index === null ? "" : "meld " + m.index + ": player_" + m.owner + "'s " + m.kind;
      if (label) { box.appendChild(el("span", "label", label)); }
      box.setAttribute("aria-label", (label || "meld") + ": " + m.cards.join(" "));
      out.melds.push(box);
      table.appendChild(box);
    });
    var tableBox = el("div", "table-melds");
    tableBox.appendChild(el("div", "label", title));
    tableBox.appendChild(table);
    root.appendChild(tableBox);
    var piles = el("div", "piles");
    var stock = el("div", "pile stock");
    stock.appendChild(el("span", "label", (view.tiles ? "pool " : "stock ") + view.stock));
    var top = view.stock ? card(null, { button: opts.me !== undefined }) : el("span", "empty", "empty");
    if (top.tagName === "BUTTON") { top.disabled = true; top.id = "stock"; top.setAttribute("aria-label", "the stock: draw"); }
    stock.appendChild(top);
    out.stock = top.tagName === "BUTTON" ? top : null;
    piles.appendChild(stock);
    if (!view.tiles) {
      var pile = el("div", "pile discard");
      pile.appendChild(el("span", "label", "discard pile " + view.discard.count));
      var cards = el("div", "cards");
      var shown = view.discard.cards;
      shown.forEach(function (c, i) {
        var b = card(c, { button: opts.me !== undefined });
        if (b.tagName === "BUTTON") {
          b.disabled = true;
          b.dataset.depth = shown.length - 1 - i;
          out.pile.push(b);
        }
        cards.appendChild(b);
      });
      if (!shown.length) { cards.appendChild(el("span", "empty", "empty")); }
      if (out.pile.length) { out.discard = out.pile[out.pile.length - 1]; out.discard.id = "discard"; }
      pile.appendChild(cards);
      piles.appendChild(pile);
    }
    if (view.played && view.played.length) {
      var played = el("div", "pile played");
      played.appendChild(el("span", "label", "played this turn"));
      played.appendChild(row(view.played));
      piles.appendChild(played);
    }
    if (view.forbidden) {
      var fb = el("div", "pile forbidden");
      fb.appendChild(el("span", "label", "may not discard"));
      fb.appendChild(card(view.forbidden));
      piles.appendChild(fb);
    }
    root.appendChild(piles);
    return out;
  }

  window.RummyTable = { render: render, card: card, sortCards: sortCards, cardName: cardName };
})();
