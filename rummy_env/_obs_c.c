/* rummy_env/observation.py's LiveObservation.update, compiled: one seat's observation
 * vector kept between moves and rewritten only where the state differs from what the
 * vector shows.
 *
 * The same steps as the Python update (`LiveObservation._update_py`), over the same
 * vector: the hand's and the opponents' known cards' faces whose counts changed, the
 * discard pile's rows whose card changed, the owner
 * columns of the table slots after a change of viewer, and the tail (hand sizes to the
 * end) rewritten whole. A new game starts from the layout's zeros, shown as an empty hand,
 * pile and table, so the same steps write all of it. The table slots whose meld is not
 * the one shown are rewritten as `_update_table` does. What happens seldom is left to the
 * Python functions, called from here: each game's own slices (the layout's writers) are
 * written after the tail. The vector equals `encode`'s after every update
 * (tests/test_observation_incremental.py runs both updates over random games of every
 * preset).
 *
 * Only for the shared layout (a game with its own whole observation, Canasta, keeps the
 * Python update). Optional: without a C compiler the Python update serves, slower.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>

#define API_VERSION 3
#define NF 53          /* faces: 52 cards and the joker */
#define JOKER 52
#define NUM_RANKS 13
#define ACE_HIGH_POS 13
#define OBS_BOUND 10000

/* The state's attributes read here (interned once). */
static PyObject *s_hands, *s_known, *s_discard, *s_table, *s_nhand, *s_totals, *s_played,
    *s_active, *s_opened, *s_credit, *s_stock, *s_phase, *s_dealer, *s_forbidden,
    *s_rebuilds, *s_knock_limit, *s_turn_value, *s_must_use, *s_owner;
/* A table meld's (engine.state.TableMeld). */
static PyObject *s_is_run, *s_key, *s_lo, *s_hi, *s_wild, *s_cards, *s_n_wild, *s_wild_cards;

/* The layout's offsets read at construction, in this order. */
enum {
    O_KNOWN,
    O_DISCARD,
    O_TABLE,
    O_HAND_SIZES,
    O_STOCK_SIZE,
    O_PHASE,
    O_TO_ACT,
    O_FORBIDDEN,
    O_PLAYED,
    O_ACTIVE,
    O_TOTALS,
    O_DEALER,
    O_REBUILDS,
    O_KNOCK_LIMIT,
    O_MUST_USE,
    O_OPENED,
    O_TURN_VALUE,
    O_CREDIT,
    N_OFFS
};
static const char *off_names[N_OFFS] = {
    "KNOWN",     "DISCARD",  "TABLE",   "HAND_SIZES", "STOCK_SIZE",  "PHASE",
    "TO_ACT",    "FORBIDDEN", "PLAYED", "ACTIVE",     "TOTALS",      "DEALER",
    "REBUILDS",  "KNOCK_LIMIT", "MUST_USE", "OPENED", "TURN_VALUE",  "CREDIT",
};

typedef struct {
    PyObject_HEAD
    Py_buffer buf;        /* the vector (float32, C-contiguous) */
    float *o;
    float *zero;          /* the layout's zeros (layout.zero_bytes) */
    Py_ssize_t size;
    int P, slot, seat_flags;
    int off[N_OFFS];
    PyObject *array;      /* what update returns (the numpy vector) */
    PyObject *mv;         /* a memoryview of the vector, for the Python functions */
    PyObject *layout;
    PyObject *acting;     /* engine.acting_seat(state) */
    PyObject *writers;    /* tuple: the game's own slices, (o, layout, state, p) */
    PyObject *state;      /* the game shown (a strong reference), or NULL */
    PyObject *table;      /* a list: the melds shown, slot by slot */
    int seat;
    unsigned char *hand;  /* NF: the counts shown */
    unsigned char *known; /* (P-1) x NF */
    int *discard;         /* the faces shown, bottom..top */
    Py_ssize_t ndiscard, discard_cap;
} Live;

/* ------------------------------------------------------------------ helpers */

/* The ints 0..255 (strong references): an item of a list that is the object of the
 * count or face shown is that number, read without a conversion. */
#define N_SMALL 256
static PyObject *small[N_SMALL];

static inline int
pmod(long a, int P)
{
    long r = a % P;
    return (int)(r < 0 ? r + P : r);
}

/* A Python int as a long (-1 with an error set on failure). */
static inline long
as_long(PyObject *x, int *err)
{
    long v = PyLong_AsLong(x);
    if (v == -1 && PyErr_Occurred())
        *err = 1;
    return v;
}

/* A Python int clipped to -OBS_BOUND..OBS_BOUND (as the Python code clips). */
static inline float
clipped(PyObject *x, int *err)
{
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(x, &overflow);
    if (overflow)
        return overflow > 0 ? (float)OBS_BOUND : (float)-OBS_BOUND;
    if (v == -1 && PyErr_Occurred()) {
        *err = 1;
        return 0.0f;
    }
    if (v > OBS_BOUND)
        return (float)OBS_BOUND;
    if (v < -OBS_BOUND)
        return (float)-OBS_BOUND;
    return (float)v;
}

/* A list attribute of the state (a new reference), checked. */
static PyObject *
get_list(PyObject *state, PyObject *name)
{
    PyObject *v = PyObject_GetAttr(state, name);
    if (v != NULL && !PyList_Check(v)) {
        PyErr_Format(PyExc_TypeError, "state.%U is not a list", name);
        Py_DECREF(v);
        return NULL;
    }
    return v;
}

/* An int attribute of the state. */
static int
get_int(PyObject *state, PyObject *name, long *out)
{
    PyObject *v = PyObject_GetAttr(state, name);
    if (v == NULL)
        return -1;
    int err = 0;
    *out = as_long(v, &err);
    Py_DECREF(v);
    return err ? -1 : 0;
}

/* The counts of `counts` (a list of NF ints) written at `base` where they differ from
 * `shown` (what the vector shows there), and recorded. */
static int
write_counts(Live *self, int base, PyObject *counts, unsigned char *shown)
{
    if (PyList_GET_SIZE(counts) != NF) {
        PyErr_SetString(PyExc_ValueError, "a hand or known list is not a count per face");
        return -1;
    }
    PyObject **items = ((PyListObject *)counts)->ob_item;
    float *o = self->o + base;
    int err = 0;
    for (int f = 0; f < NF; f++) {
        if (items[f] == small[shown[f]])
            continue; /* the count shown */
        long c = as_long(items[f], &err);
        if (err)
            return -1;
        if (c != shown[f]) {
            if (c < 0 || c > 255) {
                PyErr_Format(PyExc_ValueError, "a count of %ld cards of one face", c);
                return -1;
            }
            o[f] = (float)c;
            shown[f] = (unsigned char)c;
        }
    }
    return 0;
}

static int
record_discard(Live *self, PyObject *pile)
{
    Py_ssize_t n = PyList_GET_SIZE(pile);
    if (n > self->discard_cap) {
        int *d = PyMem_Realloc(self->discard, (size_t)n * sizeof(int));
        if (d == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        self->discard = d;
        self->discard_cap = n;
    }
    int err = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        long f = as_long(PyList_GET_ITEM(pile, i), &err);
        if (err)
            return -1;
        if (f < 0 || f >= NF) {
            PyErr_Format(PyExc_ValueError, "a discard pile holds face %ld", f);
            return -1;
        }
        self->discard[i] = (int)f;
    }
    self->ndiscard = n;
    return 0;
}

static int
record_table(Live *self, PyObject *table)
{
    PyObject *copy = PyList_GetSlice(table, 0, PyList_GET_SIZE(table));
    if (copy == NULL)
        return -1;
    Py_XSETREF(self->table, copy);
    return 0;
}

/* The discard rows (row 0 = the top card) for `pile`, where they differ from the pile
 * shown. */
static int
update_discard(Live *self, PyObject *pile)
{
    Py_ssize_t n = PyList_GET_SIZE(pile), m = self->ndiscard;
    PyObject **items = ((PyListObject *)pile)->ob_item;
    float *o = self->o + self->off[O_DISCARD];
    int err = 0;
    if (self->off[O_DISCARD] + n * NF > self->off[O_TABLE]) {
        PyErr_SetString(PyExc_ValueError, "the discard pile is longer than the layout's rows");
        return -1;
    }
    if (n == m) { /* most moves leave the pile as it is */
        Py_ssize_t i = 0;
        while (i < n && items[i] == small[self->discard[i]])
            i++;
        if (i == n)
            return 0;
    }
    Py_ssize_t rows = n > m ? n : m;
    for (Py_ssize_t i = 0; i < rows; i++) {
        int nf = -1, of = -1;
        if (i < m)
            of = self->discard[m - 1 - i];
        if (i < n) {
            PyObject *it = items[n - 1 - i];
            if (of >= 0 && it == small[of])
                continue; /* the card shown in this row */
            nf = (int)as_long(it, &err);
            if (err)
                return -1;
            if (nf < 0 || nf >= NF) {
                PyErr_Format(PyExc_ValueError, "a discard pile holds face %d", nf);
                return -1;
            }
        }
        if (nf != of) {
            if (of >= 0)
                o[i * NF + of] = 0.0f;
            if (nf >= 0)
                o[i * NF + nf] = 1.0f;
        }
    }
    return record_discard(self, pile);
}

/* The tail, from hand_sizes to the end (as observation._write_tail). */
static int
write_tail(Live *self, PyObject *state, int p)
{
    int P = self->P, err = 0, rc = -1;
    const int *off = self->off;
    float *o = self->o;
    int t0 = off[O_HAND_SIZES];
    memcpy(o + t0, self->zero + t0, (size_t)(self->size - t0) * sizeof(float));
    PyObject *nhand = get_list(state, s_nhand), *totals = NULL, *played = NULL,
             *active = NULL, *opened = NULL, *credit = NULL, *stock = NULL, *a = NULL;
    if (nhand == NULL || (totals = get_list(state, s_totals)) == NULL)
        goto done;
    if (PyList_GET_SIZE(nhand) < P || PyList_GET_SIZE(totals) < P) {
        PyErr_SetString(PyExc_ValueError, "state.nhand or state.totals is not one per seat");
        goto done;
    }
    for (int k = 0; k < P; k++) {
        int q = (p + k) % P;
        o[off[O_HAND_SIZES] + k] = (float)as_long(PyList_GET_ITEM(nhand, q), &err);
        PyObject *t = PyList_GET_ITEM(totals, q);
        float v = clipped(t, &err);
        if (v != 0.0f)
            o[off[O_TOTALS] + k] = v;
        if (err)
            goto done;
    }
    if (self->seat_flags) {
        if ((played = get_list(state, s_played)) == NULL ||
            (active = get_list(state, s_active)) == NULL ||
            (opened = get_list(state, s_opened)) == NULL ||
            (credit = get_list(state, s_credit)) == NULL)
            goto done;
        if (PyList_GET_SIZE(played) < P || PyList_GET_SIZE(active) < P ||
            PyList_GET_SIZE(opened) < P || PyList_GET_SIZE(credit) < P) {
            PyErr_SetString(PyExc_ValueError, "a per-seat field of the state is short");
            goto done;
        }
        for (int k = 0; k < P; k++) {
            int q = (p + k) % P, b;
            if ((b = PyObject_IsTrue(PyList_GET_ITEM(played, q))) < 0)
                goto done;
            if (b)
                o[off[O_PLAYED] + k] = 1.0f;
            if ((b = PyObject_IsTrue(PyList_GET_ITEM(active, q))) < 0)
                goto done;
            if (b)
                o[off[O_ACTIVE] + k] = 1.0f;
            if ((b = PyObject_IsTrue(PyList_GET_ITEM(opened, q))) < 0)
                goto done;
            if (b)
                o[off[O_OPENED] + k] = 1.0f;
            float v = clipped(PyList_GET_ITEM(credit, q), &err);
            if (err)
                goto done;
            if (v != 0.0f)
                o[off[O_CREDIT] + k] = v;
        }
    }
    if ((stock = PyObject_GetAttr(state, s_stock)) == NULL)
        goto done;
    Py_ssize_t ns = PyObject_Length(stock);
    if (ns < 0)
        goto done;
    o[off[O_STOCK_SIZE]] = (float)ns;
    long phase, dealer, forbidden, rebuilds, knock, turn_value, must_use;
    if (get_int(state, s_phase, &phase) < 0 || get_int(state, s_dealer, &dealer) < 0 ||
        get_int(state, s_forbidden, &forbidden) < 0 ||
        get_int(state, s_rebuilds, &rebuilds) < 0 ||
        get_int(state, s_knock_limit, &knock) < 0 ||
        get_int(state, s_turn_value, &turn_value) < 0 ||
        get_int(state, s_must_use, &must_use) < 0)
        goto done;
    if ((a = PyObject_CallOneArg(self->acting, state)) == NULL)
        goto done;
    long actor = as_long(a, &err);
    if (err)
        goto done;
    if (phase < 0 || off[O_PHASE] + phase >= off[O_TO_ACT] || forbidden >= NF ||
        must_use >= NF) {
        PyErr_Format(PyExc_ValueError,
                     "state.phase %ld, forbidden %ld or must_use %ld is out of range", phase,
                     forbidden, must_use);
        goto done;
    }
    o[off[O_PHASE] + phase] = 1.0f;
    o[off[O_TO_ACT] + pmod(actor - p, P)] = 1.0f;
    o[off[O_DEALER] + pmod(dealer - p, P)] = 1.0f;
    if (forbidden >= 0)
        o[off[O_FORBIDDEN] + forbidden] = 1.0f;
    if (rebuilds)
        o[off[O_REBUILDS]] = (float)(rebuilds < OBS_BOUND ? rebuilds : OBS_BOUND);
    if (knock)
        o[off[O_KNOCK_LIMIT]] = (float)(knock < OBS_BOUND ? knock : OBS_BOUND);
    if (turn_value)
        o[off[O_TURN_VALUE]] = (float)(turn_value < OBS_BOUND ? turn_value : OBS_BOUND);
    if (must_use >= 0)
        o[off[O_MUST_USE] + must_use] = 1.0f;
    Py_ssize_t nw = PyTuple_GET_SIZE(self->writers);
    if (nw) {
        PyObject *pp = PyLong_FromLong(p);
        if (pp == NULL)
            goto done;
        for (Py_ssize_t i = 0; i < nw; i++) {
            PyObject *args[4] = {self->mv, self->layout, state, pp};
            PyObject *r = PyObject_Vectorcall(PyTuple_GET_ITEM(self->writers, i), args, 4, NULL);
            if (r == NULL) {
                Py_DECREF(pp);
                goto done;
            }
            Py_DECREF(r);
        }
        Py_DECREF(pp);
    }
    rc = 0;
done:
    Py_XDECREF(nhand);
    Py_XDECREF(totals);
    Py_XDECREF(played);
    Py_XDECREF(active);
    Py_XDECREF(opened);
    Py_XDECREF(credit);
    Py_XDECREF(stock);
    Py_XDECREF(a);
    return rc;
}

/* An int attribute (-1 with `err` set on failure). */
static long
int_attr(PyObject *obj, PyObject *name, int *err)
{
    PyObject *v = PyObject_GetAttr(obj, name);
    if (v == NULL) {
        *err = 1;
        return -1;
    }
    long r = as_long(v, err);
    Py_DECREF(v);
    return r;
}

/* The owner columns of the slots shown, for viewer `p` instead of `self->seat`. */
static int
move_owners(Live *self, int p)
{
    int P = self->P, b = self->off[O_TABLE], err = 0;
    Py_ssize_t n = PyList_GET_SIZE(self->table);
    for (Py_ssize_t i = 0; i < n; i++, b += self->slot) {
        long owner = int_attr(PyList_GET_ITEM(self->table, i), s_owner, &err);
        if (err)
            return -1;
        self->o[b + pmod(owner - self->seat, P)] = 0.0f;
        self->o[b + pmod(owner - p, P)] = 1.0f;
    }
    return 0;
}

/* A tuple or list attribute as a fast sequence (a new reference; NULL on failure). */
static PyObject *
seq_attr(PyObject *obj, PyObject *name)
{
    PyObject *v = PyObject_GetAttr(obj, name);
    if (v == NULL)
        return NULL;
    PyObject *r = PySequence_Fast(v, "a table meld's cards are not a sequence");
    Py_DECREF(v);
    return r;
}

/* Table meld `m` into its zeroed slot at `b`, for viewer `p` (observation._encode_meld):
 * owner (seat offset), kind, and a column per card: a set's count of each natural face, a
 * run's code at each place (1 natural, 2 a joker, 5-8 a wild 2 of suit 0-3; an ace played
 * high 2 more, a wild 2 there 4 more), and the wild cards in the meld (column 52 jokers,
 * 53-56 wild 2s by suit). */
static int
encode_meld(Live *self, PyObject *m, Py_ssize_t b, int p)
{
    int err = 0, P = self->P, width = self->slot - P - 2; /* the card columns */
    float *o = self->o, *c = self->o + b + P + 2;
    long owner = int_attr(m, s_owner, &err);
    long is_run = err ? 0 : int_attr(m, s_is_run, &err);
    long n_wild = err ? 0 : int_attr(m, s_n_wild, &err);
    if (err)
        return -1;
    PyObject *wcs = seq_attr(m, s_wild_cards), *cards = NULL;
    if (wcs == NULL)
        return -1;
    Py_ssize_t nw = PySequence_Fast_GET_SIZE(wcs);
    int rc = -1;
    o[b + pmod(owner - p, P)] = 1.0f;
    o[b + P + (is_run ? 1 : 0)] = 1.0f;
    if (is_run) {
        long key = int_attr(m, s_key, &err);
        long lo = err ? 0 : int_attr(m, s_lo, &err);
        long hi = err ? 0 : int_attr(m, s_hi, &err);
        long wild = err ? 0 : int_attr(m, s_wild, &err);
        if (err)
            goto out;
        if (key < 0 || key > 3 || lo < 0 || hi > ACE_HIGH_POS || lo > hi) {
            PyErr_Format(PyExc_ValueError, "a run of suit %ld over places %ld..%ld is not allowed "
                         "(allowed: suits 0..3, places 0..13)", key, lo, hi);
            goto out;
        }
        Py_ssize_t k = 0;
        for (long pos = lo; pos <= hi; pos++) {
            float code = 1.0f;
            if (wild >> pos & 1) {
                if (k >= nw) {
                    PyErr_SetString(PyExc_ValueError, "a run has fewer wild cards than wild places");
                    goto out;
                }
                long w = as_long(PySequence_Fast_GET_ITEM(wcs, k++), &err);
                if (err)
                    goto out;
                if (w < 0 || w > JOKER) {
                    PyErr_Format(PyExc_ValueError, "wild card %ld is not allowed (allowed: 0..52)", w);
                    goto out;
                }
                code = w == JOKER ? 2.0f : 5.0f + (float)(w / NUM_RANKS);
            }
            if (pos == ACE_HIGH_POS)
                code += code < 5.0f ? 2.0f : 4.0f;
            c[key * NUM_RANKS + pos % NUM_RANKS] = code;
        }
    } else {
        if ((cards = seq_attr(m, s_cards)) == NULL)
            goto out;
        Py_ssize_t n = PySequence_Fast_GET_SIZE(cards) - n_wild;
        for (Py_ssize_t i = 0; i < n; i++) {
            long f = as_long(PySequence_Fast_GET_ITEM(cards, i), &err);
            if (err)
                goto out;
            if (f < 0 || f >= JOKER) {
                PyErr_Format(PyExc_ValueError, "a set's card %ld is not allowed (allowed: 0..51)", f);
                goto out;
            }
            c[f] += 1.0f;
        }
    }
    if (n_wild) {
        for (Py_ssize_t i = 0; i < nw; i++) {
            long w = as_long(PySequence_Fast_GET_ITEM(wcs, i), &err);
            if (err)
                goto out;
            long col = w == JOKER ? JOKER : NF + w / NUM_RANKS;
            if (w < 0 || w > JOKER || col >= width) {
                PyErr_Format(PyExc_ValueError, "wild card %ld is not allowed in this layout", w);
                goto out;
            }
            c[col] += 1.0f;
        }
    }
    rc = 0;
out:
    Py_DECREF(wcs);
    Py_XDECREF(cards);
    return rc;
}

/* The table slots whose meld is not the one shown, rewritten for viewer `p`
 * (observation._update_table): 1 if any was, 0 if none, -1 on failure. */
static int
update_table(Live *self, PyObject *table, int p)
{
    Py_ssize_t nt = PyList_GET_SIZE(table), no = PyList_GET_SIZE(self->table);
    Py_ssize_t n = nt > no ? nt : no, slot = self->slot;
    Py_ssize_t end = self->off[O_HAND_SIZES]; /* the table's slots end there */
    int changed = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *m = i < nt ? PyList_GET_ITEM(table, i) : NULL;
        if (i < no && m == PyList_GET_ITEM(self->table, i))
            continue;
        changed = 1;
        Py_ssize_t b = self->off[O_TABLE] + i * slot;
        if (b + slot > end) {
            PyErr_Format(PyExc_ValueError, "%zd melds on the table: the observation has %zd slots",
                         nt, (end - self->off[O_TABLE]) / slot);
            return -1;
        }
        memcpy(self->o + b, self->zero + b, (size_t)slot * sizeof(float));
        if (m != NULL && encode_meld(self, m, b, p) < 0)
            return -1;
    }
    return changed;
}

/* ------------------------------------------------------------------ update */

static PyObject *
Live_update(Live *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "update(state, p) takes 2 arguments");
        return NULL;
    }
    PyObject *state = args[0];
    int err = 0;
    long pl = as_long(args[1], &err);
    if (err)
        return NULL;
    if (pl < 0 || pl >= self->P) {
        PyErr_Format(PyExc_ValueError, "seat %ld is not allowed (allowed: 0..%d)", pl,
                     self->P - 1);
        return NULL;
    }
    int p = (int)pl, P = self->P;
    if (state != self->state) {
        /* a new game (a reset, a restore): the zeros, shown as an empty hand, pile and
         * table, then the same update as after a move writes all of it */
        memcpy(self->o, self->zero, (size_t)self->size * sizeof(float));
        memset(self->hand, 0, NF);
        memset(self->known, 0, (size_t)(P - 1) * NF);
        self->ndiscard = 0;
        PyObject *empty = PyList_New(0);
        if (empty == NULL)
            return NULL;
        Py_SETREF(self->table, empty);
        self->seat = p;
        Py_INCREF(state);
        Py_XSETREF(self->state, state);
    }
    PyObject *result = NULL;
    PyObject *hands = get_list(state, s_hands), *known = NULL, *pile = NULL, *table = NULL;
    if (hands == NULL || (known = get_list(state, s_known)) == NULL ||
        (pile = get_list(state, s_discard)) == NULL ||
        (table = get_list(state, s_table)) == NULL)
        goto fail;
    if (PyList_GET_SIZE(hands) != P || PyList_GET_SIZE(known) != P) {
        PyErr_SetString(PyExc_ValueError, "state.hands or state.known is not one per seat");
        goto fail;
    }
    /* the hand's and the known cards' faces whose counts differ from those shown */
    PyObject *hand = PyList_GET_ITEM(hands, p);
    if (!PyList_Check(hand) || write_counts(self, 0, hand, self->hand) < 0)
        goto fail;
    for (int k = 1; k < P; k++) {
        PyObject *kn = PyList_GET_ITEM(known, (p + k) % P);
        if (!PyList_Check(kn) ||
            write_counts(self, self->off[O_KNOWN] + (k - 1) * NF, kn,
                         self->known + (k - 1) * NF) < 0)
            goto fail;
    }
    if (update_discard(self, pile) < 0)
        goto fail;
    if (p != self->seat) { /* another viewer: each shown meld's owner column */
        if (PyList_GET_SIZE(self->table) && move_owners(self, p) < 0)
            goto fail;
        self->seat = p;
    }
    int changed = update_table(self, table, p);
    if (changed < 0 || (changed && record_table(self, table) < 0))
        goto fail;
    if (write_tail(self, state, p) < 0)
        goto fail;
    Py_INCREF(self->array);
    result = self->array;
    goto done;
fail:
    /* what the vector shows is no longer known: the next update writes it anew */
    Py_CLEAR(self->state);
done:
    Py_XDECREF(hands);
    Py_XDECREF(known);
    Py_XDECREF(pile);
    Py_XDECREF(table);
    return result;
}

/* ------------------------------------------------------------------ the type */

static int
Live_init(Live *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"out", "zero", "layout", "acting", "mv", NULL};
    PyObject *out, *zero, *layout, *acting, *mv;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OOOOO", kwlist, &out, &zero, &layout, &acting,
                                     &mv))
        return -1;
    if (self->o != NULL) {
        PyErr_SetString(PyExc_RuntimeError, "Live is initialised once");
        return -1;
    }
    if (PyObject_GetBuffer(out, &self->buf, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0)
        return -1;
    if (self->buf.itemsize != 4 || self->buf.format == NULL || strcmp(self->buf.format, "f") != 0) {
        PyBuffer_Release(&self->buf);
        PyErr_SetString(PyExc_ValueError, "out is not a float32 vector");
        return -1;
    }
    self->o = (float *)self->buf.buf;
    self->size = self->buf.len / 4;
    char *zb;
    Py_ssize_t zn;
    if (PyBytes_AsStringAndSize(zero, &zb, &zn) < 0)
        return -1;
    if (zn != self->size * 4) {
        PyErr_SetString(PyExc_ValueError, "zero and out differ in size");
        return -1;
    }
    self->zero = PyMem_Malloc((size_t)zn);
    if (self->zero == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    memcpy(self->zero, zb, (size_t)zn);
    long v;
    PyObject *x;
#define INT_ATTR(field, name)                                \
    if ((x = PyObject_GetAttrString(layout, name)) == NULL) \
        return -1;                                           \
    v = PyLong_AsLong(x);                                    \
    Py_DECREF(x);                                            \
    if (v == -1 && PyErr_Occurred())                         \
        return -1;                                           \
    field = (int)v;
    INT_ATTR(self->P, "P")
    INT_ATTR(self->slot, "slot")
    for (int i = 0; i < N_OFFS; i++) {
        INT_ATTR(self->off[i], off_names[i])
        if (self->off[i] < 0 || self->off[i] >= self->size) {
            PyErr_Format(PyExc_ValueError, "layout.%s is out of the vector", off_names[i]);
            return -1;
        }
    }
#undef INT_ATTR
    if ((x = PyObject_GetAttrString(layout, "seat_flags")) == NULL)
        return -1;
    self->seat_flags = PyObject_IsTrue(x);
    Py_DECREF(x);
    if (self->seat_flags < 0)
        return -1;
    if ((x = PyObject_GetAttrString(layout, "writers")) == NULL)
        return -1;
    self->writers = PySequence_Tuple(x);
    Py_DECREF(x);
    if (self->writers == NULL)
        return -1;
    if (self->P < 1 || self->P > 64) {
        PyErr_SetString(PyExc_ValueError, "layout.P is not a player count");
        return -1;
    }
    self->hand = PyMem_Calloc(NF, 1);
    self->known = PyMem_Calloc((size_t)(self->P - 1) * NF + 1, 1);
    self->table = PyList_New(0);
    if (self->hand == NULL || self->known == NULL || self->table == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    Py_INCREF(out);
    self->array = out;
    Py_INCREF(layout);
    self->layout = layout;
    Py_INCREF(acting);
    self->acting = acting;
    Py_INCREF(mv);
    self->mv = mv;
    self->seat = -1;
    return 0;
}

static int
Live_traverse(Live *self, visitproc visit, void *arg)
{
    Py_VISIT(self->array);
    Py_VISIT(self->mv);
    Py_VISIT(self->layout);
    Py_VISIT(self->acting);
    Py_VISIT(self->writers);
    Py_VISIT(self->state);
    Py_VISIT(self->table);
    return 0;
}

static int
Live_clear(Live *self)
{
    Py_CLEAR(self->mv);
    Py_CLEAR(self->layout);
    Py_CLEAR(self->acting);
    Py_CLEAR(self->writers);
    Py_CLEAR(self->state);
    Py_CLEAR(self->table);
    return 0;
}

static void
Live_dealloc(Live *self)
{
    PyObject_GC_UnTrack(self);
    Live_clear(self);
    if (self->o != NULL)
        PyBuffer_Release(&self->buf);
    Py_CLEAR(self->array);
    PyMem_Free(self->zero);
    PyMem_Free(self->hand);
    PyMem_Free(self->known);
    PyMem_Free(self->discard);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyMethodDef Live_methods[] = {
    {"update", (PyCFunction)(void (*)(void))Live_update, METH_FASTCALL,
     "update(state, p): make the vector p's observation of state; returns it"},
    {NULL},
};

static PyTypeObject LiveType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "rummy_env._obs_c.Live",
    .tp_basicsize = sizeof(Live),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_doc = "One observation vector kept up to date between moves (observation.LiveObservation).",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Live_init,
    .tp_dealloc = (destructor)Live_dealloc,
    .tp_traverse = (traverseproc)Live_traverse,
    .tp_clear = (inquiry)Live_clear,
    .tp_methods = Live_methods,
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_obs_c",
    "LiveObservation.update, compiled (rummy_env/_obs_c.c).", -1, NULL,
};

PyMODINIT_FUNC
PyInit__obs_c(void)
{
#define INTERN(var, name)                                  \
    if ((var = PyUnicode_InternFromString(name)) == NULL) \
        return NULL;
    INTERN(s_hands, "hands")
    INTERN(s_known, "known")
    INTERN(s_discard, "discard")
    INTERN(s_table, "table")
    INTERN(s_nhand, "nhand")
    INTERN(s_totals, "totals")
    INTERN(s_played, "played")
    INTERN(s_active, "active")
    INTERN(s_opened, "opened")
    INTERN(s_credit, "credit")
    INTERN(s_stock, "stock")
    INTERN(s_phase, "phase")
    INTERN(s_dealer, "dealer")
    INTERN(s_forbidden, "forbidden")
    INTERN(s_rebuilds, "rebuilds")
    INTERN(s_knock_limit, "knock_limit")
    INTERN(s_turn_value, "turn_value")
    INTERN(s_must_use, "must_use")
    INTERN(s_owner, "owner")
    INTERN(s_is_run, "is_run")
    INTERN(s_key, "key")
    INTERN(s_lo, "lo")
    INTERN(s_hi, "hi")
    INTERN(s_wild, "wild")
    INTERN(s_cards, "cards")
    INTERN(s_n_wild, "n_wild")
    INTERN(s_wild_cards, "wild_cards")
#undef INTERN
    for (int k = 0; k < N_SMALL; k++)
        if ((small[k] = PyLong_FromLong(k)) == NULL)
            return NULL;
    if (PyType_Ready(&LiveType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&module);
    if (m == NULL)
        return NULL;
    Py_INCREF(&LiveType);
    if (PyModule_AddObject(m, "Live", (PyObject *)&LiveType) < 0 ||
        PyModule_AddIntConstant(m, "API", API_VERSION) < 0) {
        Py_DECREF(&LiveType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
