/* rummy-web's card table: draws a table view (the JSON of experiments/web.py's table_view)
   as HTML cards. RummyTable.render(root, view, opts) returns the elements the pages wire up:
   the seat's hand cards, the stock, the discard pile and the table melds. Canasta's table
   (view.canasta) groups the melds by side, each side with its red 3s, whether it has opened
   (else its initial meld minimum) and its canastas, marked natural or mixed. */
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

  var RANK_WORDS = { A: "aces", T: "10s", J: "jacks", Q: "queens", K: "kings" };

  /* The rank a Canasta meld is of, in words ("7s", "aces", "black 3s"). */
  function meldRank(m) {
    var c = m.cards.find(function (x) { return x !== "JK" && x[0] !== "2"; }) || m.cards[0];
    if (c[0] === "3") { return "black 3s"; }
    return RANK_WORDS[c[0]] || c[0] + "s";
  }

  function seatWords(view, s) {
    return "player_" + s.seat + (s.you ? " (you)" : s.partner ? " (partner)" : "");
  }

  /* Canasta: one box per side, its facts, then its melds (out.melds gets the meld boxes). */
  function canastaSides(view, opts, out) {
    var C = view.canasta;
    var wrap = el("div", "sides");
    C.sides.forEach(function (sd) {
      var box = el("div", "side-group side-" + sd.side + (sd.yours ? " yours" : ""));
      box.dataset.side = sd.side;
      var head = el("div", "side-head");
      var who = sd.seats.map(function (p) { return seatWords(view, view.seats[p]); }).join(" & ");
      head.appendChild(el("b", null, "side " + sd.side + (sd.yours ? " (your side)" : "") + ": " + who));
      var facts = el("span", "facts");
      facts.appendChild(el("span", "opened " + (sd.opened ? "yes" : "no"),
        sd.opened ? "opened" : "not opened: initial meld " + sd.minimum + "+"));
      facts.appendChild(el("span", null, sd.canastas + " canasta" + (sd.canastas === 1 ? "" : "s") +
        " (" + C.to_go_out + " to go out)"));
      var reds = el("span", "reds");
      reds.appendChild(el("span", null, "red 3s: "));
      if (!sd.red_threes.length) { reds.appendChild(el("span", "empty", "none")); }
      sd.red_threes.forEach(function (c) { reds.appendChild(card(c)); });
      facts.appendChild(reds);
      head.appendChild(facts);
      box.appendChild(head);
      var melds = el("div", "melds");
      var mine = view.melds.filter(function (m) { return m.side === sd.side; });
      if (!mine.length) { melds.appendChild(el("span", "empty", "no melds")); }
      mine.forEach(function (m) {
        var b = el(opts.me !== undefined ? "button" : "div", "meld" + (m.canasta ? " canasta " + m.canasta : ""));
        if (b.tagName === "BUTTON") { b.type = "button"; b.disabled = true; }
        b.dataset.meld = m.index;
        b.appendChild(row(m.cards, { wild: m.wild }));
        var label = "meld " + m.index + ": " + meldRank(m) + " \u00b7 " + m.cards.length +
          (m.canasta ? " \u00b7 " + m.canasta + " canasta" : "");
        b.appendChild(el("span", "label", label));
        b.setAttribute("aria-label", label + ", player_" + m.owner + "'s: " + m.cards.join(" "));
        out.melds.push(b);
        melds.appendChild(b);
      });
      box.appendChild(melds);
      wrap.appendChild(box);
    });
    return wrap;
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
    if (view.canasta && view.canasta.final_turn) {
      head.appendChild(el("span", "contract final-turn",
        "final turn: the last stock card was a red 3 (meld or lay off, no discard, then end the round)"));
    }
    root.appendChild(head);
    var unit = view.tiles ? "tile" : "card";
    view.seats.forEach(function (s) {
      var box = el("div", "seat" + (s.turn ? " turn" : "") + (s.seat === opts.me ? " hand" : "") +
        (view.canasta ? " side-" + s.side : "") + (s.partner ? " partner" : ""));
      box.dataset.seat = s.seat;
      var who = el("div", "who");
      who.appendChild(el("b", null, "player_" + s.seat + (s.you ? " (you)" : "")));
      if (s.partner) { who.appendChild(el("span", "badge", "partner")); }
      var info = s.name + " \u00b7 " + s.count + " " + unit + (s.count === 1 ? "" : "s") +
        (view.canasta ? " \u00b7 side " + s.side : "") + " \u00b7 total " + s.total;
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
    if (view.canasta) { table = canastaSides(view, opts, out); title = "the table, side by side"; }
    else if (!view.melds.length) { table.appendChild(el("span", "empty", view.tiles ? "no tiles on the table" : "no melds on the table")); }
    (view.canasta ? [] : view.melds).forEach(function (m, i) {
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
      if (view.canasta) {
        pile.appendChild(el("span", "frozen-state " + (view.canasta.frozen ? "frozen" : "open"),
          view.canasta.frozen ? "frozen" : "not frozen"));
      }
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
    if (view.canasta && view.canasta.pending.length) {
      var pend = el("div", "pile pending");
      pend.appendChild(el("span", "label", "taken with the pile, waiting for the opening (count " +
        view.canasta.opening_count + ")"));
      pend.appendChild(row(view.canasta.pending));
      piles.appendChild(pend);
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
