/* The opening search of rummy_env/_melds_opening.py (`opening_possible` and its
 * depth-first `_open_search`), compiled.
 *
 * The same steps as the Python search: the same quick exits, the same bound (the value of
 * every card in some meld, wild cards at the most they can be worth), a pure run laid
 * first where one is owed, and a memo of the hands searched (natural faces held once and
 * twice as bits, wild cards, points still needed, pure run still owed). The melds of a
 * hand are made here as `_MeldPieces` makes them from the catalogue: sets of one rank
 * from the suits held (the catalogue's set shapes of distinct suits, passed in), runs of
 * one suit over the catalogue's segments with wild cards filling the places not held.
 * So the two searches give the same answers; the tests run both against an oracle.
 *
 * _melds_opening.py uses this module when it was built and its Python search otherwise
 * (RUMMY_PURE_PYTHON=1 forces it). Optional: an install without a C compiler still works,
 * at the Python speed.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>

#define API_VERSION 1
#define JOKER 52
#define NFACES 53
#define RANK_BITS 0x1FFFu
#define MAX_SHAPES 64
#define MEMO_SLOTS (1u << 17) /* emptied past half full */

typedef struct {
    uint64_t bits; /* natural faces */
    int32_t value;
    uint8_t wu, pure;
} Move;

typedef struct {
    uint64_t once, twice;
    int32_t need;
    uint8_t w, need_pure, state; /* state 0: empty; 1: not possible; 2: possible */
} Slot;

typedef struct {
    PyObject_HEAD
    /* the rules (see Opening_init) */
    int ace_high, max_pos, min_run, wild_cap, max_wilds, min_nat, at_most_nat, wilds;
    int nshapes;
    uint8_t shape_suits[MAX_SHAPES], shape_wu[MAX_SHAPES], shape_n[MAX_SHAPES];
    int set_value[13];  /* a natural of the rank in a set */
    int pos_value[14];  /* a natural at a run's position (13: the high ace) */
    int joker_value;    /* 0: a wild card is worth the card it stands for */
    int joker_best, forb, allow_empty, plain_rank;
    int *rank_values; /* per 13-bit rank mask, the value of those ranks (the bound) */
    /* the memo (open addressing) */
    Slot *memo;
    size_t n_memo;
    /* the moves of the searches in progress, a level above another */
    Move *arena;
    size_t cap, top, level_max;
} Opening;

static inline int
popcount64(uint64_t x)
{
    return __builtin_popcountll(x);
}

/* ------------------------------------------------------------------ memo */
static inline size_t
memo_slot(uint64_t once, uint64_t twice, int w, int need, int need_pure)
{
    uint64_t h = once * 0x9E3779B97F4A7C15ULL ^ twice * 0xC2B2AE3D27D4EB4FULL ^
                 ((uint64_t)(uint32_t)need << 9 | (uint64_t)w << 1 | (uint64_t)need_pure) *
                     0x165667B19E3779F9ULL;
    h ^= h >> 29;
    return (size_t)(h * 0x94D049BB133111EBULL >> 32) & (MEMO_SLOTS - 1);
}

/* -1: not there; else the answer */
static inline int
memo_get(const Opening *o, uint64_t once, uint64_t twice, int w, int need, int need_pure)
{
    for (size_t i = memo_slot(once, twice, w, need, need_pure);; i = (i + 1) & (MEMO_SLOTS - 1)) {
        const Slot *e = &o->memo[i];
        if (e->state == 0)
            return -1;
        if (e->once == once && e->twice == twice && e->need == need && e->w == w &&
            e->need_pure == need_pure)
            return e->state - 1;
    }
}

static inline void
memo_put(Opening *o, uint64_t once, uint64_t twice, int w, int need, int need_pure, int found)
{
    if (o->n_memo >= MEMO_SLOTS / 2) {
        memset(o->memo, 0, MEMO_SLOTS * sizeof(Slot));
        o->n_memo = 0;
    }
    size_t i = memo_slot(once, twice, w, need, need_pure);
    while (o->memo[i].state != 0)
        i = (i + 1) & (MEMO_SLOTS - 1);
    o->memo[i] = (Slot){once, twice, need, (uint8_t)w, (uint8_t)need_pure, (uint8_t)(found + 1)};
    o->n_memo++;
}

/* ------------------------------------------------------------------ melds */
static inline int
wild_ok(const Opening *o, int nat, int w)
{
    if (w && !o->wilds)
        return 0;
    if (nat < o->min_nat)
        return 0;
    if (o->at_most_nat && w > nat)
        return 0;
    return !(o->max_wilds && w > o->max_wilds);
}

/* run3_bits of melds.py: non-zero when once holds three neighbouring ranks of a suit */
static inline uint64_t
run3(uint64_t f, int ace_high)
{
    const uint64_t starts = 0x7FFULL | 0x7FFULL << 13 | 0x7FFULL << 26 | 0x7FFULL << 39;
    const uint64_t queens = 1ULL << 11 | 1ULL << 24 | 1ULL << 37 | 1ULL << 50;
    return f & f >> 1 & ((f >> 2 & starts) | (ace_high ? f << 11 & queens : 0));
}

static inline uint32_t
three_suits(uint64_t f)
{
    uint32_t s0 = f & RANK_BITS, s1 = f >> 13 & RANK_BITS, s2 = f >> 26 & RANK_BITS,
             s3 = f >> 39 & RANK_BITS;
    return (s0 & s1 & (s2 | s3)) | (s2 & s3 & (s0 | s1));
}

/* The melds of the natural faces `once` and `w` wild cards into mv (sets by rank, then
 * runs by suit, as _hand_pieces orders them); their count. */
static size_t
melds_of(const Opening *o, uint64_t once, int w, Move *mv, uint64_t *faces, int *wild, int *pure)
{
    int W = w < o->wild_cap ? w : o->wild_cap;
    size_t k = 0;
    uint32_t s[4] = {once & RANK_BITS, once >> 13 & RANK_BITS, once >> 26 & RANK_BITS,
                     once >> 39 & RANK_BITS};
    uint64_t fa = 0;
    int wi = 0, pu = 0;
    for (int r = 0; r < 13; r++) {
        int rm = (s[0] >> r & 1) | (s[1] >> r & 1) << 1 | (s[2] >> r & 1) << 2 |
                 (s[3] >> r & 1) << 3;
        if (!rm)
            continue;
        int wr = r == o->plain_rank ? 0 : W;
        int v = o->set_value[r], wv = o->joker_value ? o->joker_value : v;
        for (int j = 0; j < o->nshapes; j++) {
            int sm = o->shape_suits[j], wu = o->shape_wu[j];
            if ((sm & ~rm) || wu > wr)
                continue;
            uint64_t bits = 0;
            for (int su = 0; su < 4; su++)
                if (sm >> su & 1)
                    bits |= 1ULL << (su * 13 + r);
            mv[k++] = (Move){bits, o->shape_n[j] * v + wu * wv, (uint8_t)wu, 0};
            fa |= bits;
            wi |= wu > 0;
        }
    }
    for (int su = 0; su < 4; su++) {
        uint32_t pm = s[su];
        if (!pm)
            continue;
        if (o->ace_high && (pm & 1))
            pm |= 1u << 13;
        if (!W && !(pm & pm >> 1 & pm >> 2))
            continue; /* a run needs three neighbouring naturals */
        for (int lo = 0; lo <= o->max_pos; lo++) {
            int nat = 0, gaps = 0, value = 0;
            uint64_t bits = 0;
            int last = lo + 12 < o->max_pos ? lo + 12 : o->max_pos;
            for (int hi = lo; hi <= last; hi++) {
                if (pm >> hi & 1) {
                    nat++;
                    bits |= 1ULL << (su * 13 + hi % 13);
                    value += o->pos_value[hi];
                } else {
                    if (++gaps > W)
                        break; /* longer segments lack more */
                    value += o->joker_value ? o->joker_value : o->pos_value[hi];
                }
                if (hi - lo >= o->min_run - 1 && nat && (gaps == 0 || wild_ok(o, nat, gaps))) {
                    mv[k++] = (Move){bits, value, (uint8_t)gaps, gaps == 0};
                    fa |= bits;
                    wi |= gaps > 0;
                    pu |= gaps == 0;
                }
            }
        }
    }
    *faces = fa;
    *wild = wi;
    *pure = pu;
    return k;
}

/* ------------------------------------------------------------------ search */
static inline int
value_of(const Opening *o, uint64_t f)
{
    return o->rank_values[f & RANK_BITS] + o->rank_values[f >> 13 & RANK_BITS] +
           o->rank_values[f >> 26 & RANK_BITS] + o->rank_values[f >> 39 & RANK_BITS];
}

static int search(Opening *o, uint64_t once, uint64_t twice, int w, int need, int need_pure);

/* the answer of a hand, from the memo or searched (and kept); -1: out of memory */
static inline int
answer(Opening *o, uint64_t once, uint64_t twice, int w, int need, int need_pure)
{
    if (need < 0)
        need = 0; /* (every answer is the same from 0 points down) */
    int found = memo_get(o, once, twice, w, need, need_pure);
    if (found < 0) {
        found = search(o, once, twice, w, need, need_pure);
        if (found < 0)
            return -1;
        memo_put(o, once, twice, w, need, need_pure, found);
    }
    return found;
}

/* _open_search of _melds_opening.py */
static int
search(Opening *o, uint64_t once, uint64_t twice, int w, int need, int need_pure)
{
    if (need <= 0 && !need_pure) {
        int n = popcount64(once) + popcount64(twice) + w;
        int f = o->forb;
        int nforb = f == JOKER                ? w
                    : f < 0 || f > JOKER     ? 0 /* (no face held: none forbidden) */
                                             : (int)(once >> f & 1) + (int)(twice >> f & 1);
        return n > nforb || (o->allow_empty && n == 0);
    }
    if (!run3(once, o->ace_high) && (need_pure || (!w && !three_suits(once))))
        return 0;
    size_t base = o->top;
    if (base + o->level_max > o->cap) {
        size_t cap = (base + o->level_max) * 2;
        Move *a = PyMem_Realloc(o->arena, cap * sizeof(Move));
        if (a == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        o->arena = a;
        o->cap = cap;
    }
    uint64_t faces;
    int wild, pure;
    size_t k = melds_of(o, once, w, o->arena + base, &faces, &wild, &pure);
    if (k == 0 || (need_pure && !pure))
        return 0;
    int bound = value_of(o, once & faces) + value_of(o, twice & faces);
    if (w && wild)
        bound += w * o->joker_best;
    if (bound < need)
        return 0;
    /* a pure run owed is laid first: the other melds then take the same cards, and
     * stopping sooner leaves more in hand, so a card to discard if they did */
    int only_pure = need_pure && !o->allow_empty;
    o->top = base + k;
    int found = 0;
    for (size_t i = 0; i < k && !found; i++) {
        Move m = o->arena[base + i]; /* (the arena may move in the call below) */
        if (only_pure && !m.pure)
            continue;
        uint64_t keep = ~m.bits;
        found = answer(o, (once & keep) | (twice & m.bits), twice & keep, w - m.wu,
                       need - m.value, need_pure && !m.pure);
    }
    o->top = base;
    return found;
}

/* ------------------------------------------------------------------ type */
static int
int_at(PyObject *seq, Py_ssize_t i, long *out)
{
    PyObject *x = PySequence_Fast_GET_ITEM(seq, i);
    long v = PyLong_AsLong(x);
    if (v == -1 && PyErr_Occurred())
        return -1;
    *out = v;
    return 0;
}

/* n ints of the sequence seq into out */
static int
read_ints(PyObject *seq, int n, int *out)
{
    PyObject *fast = PySequence_Fast(seq, "a sequence of ints");
    if (fast == NULL)
        return -1;
    if (PySequence_Fast_GET_SIZE(fast) != n) {
        Py_DECREF(fast);
        PyErr_Format(PyExc_ValueError, "a table of %d values expected", n);
        return -1;
    }
    for (int i = 0; i < n; i++) {
        long v;
        if (int_at(fast, i, &v) < 0) {
            Py_DECREF(fast);
            return -1;
        }
        out[i] = (int)v;
    }
    Py_DECREF(fast);
    return 0;
}

static int
Opening_init(Opening *self, PyObject *args, PyObject *kwds)
{
    PyObject *shapes, *set_values, *pos_values, *rank_values;
    if (!PyArg_ParseTuple(args, "iiiiiiiiOOOOiiiii", &self->ace_high, &self->max_pos,
                          &self->min_run, &self->wild_cap, &self->max_wilds, &self->min_nat,
                          &self->at_most_nat, &self->wilds, &shapes, &set_values, &pos_values,
                          &rank_values, &self->joker_value, &self->joker_best, &self->forb,
                          &self->allow_empty, &self->plain_rank))
        return -1;
    PyObject *sh = PySequence_Fast(shapes, "shapes: a sequence of (suit mask, wilds, naturals)");
    if (sh == NULL)
        return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(sh);
    if (n > MAX_SHAPES) {
        Py_DECREF(sh);
        PyErr_Format(PyExc_ValueError, "%zd set shapes: at most %d", n, MAX_SHAPES);
        return -1;
    }
    self->nshapes = (int)n;
    for (Py_ssize_t j = 0; j < n; j++) {
        int sm, wu, nat;
        if (!PyArg_ParseTuple(PySequence_Fast_GET_ITEM(sh, j), "iii", &sm, &wu, &nat)) {
            Py_DECREF(sh);
            return -1;
        }
        self->shape_suits[j] = (uint8_t)sm;
        self->shape_wu[j] = (uint8_t)wu;
        self->shape_n[j] = (uint8_t)nat;
    }
    Py_DECREF(sh);
    if (read_ints(set_values, 13, self->set_value) < 0 ||
        read_ints(pos_values, 14, self->pos_value) < 0)
        return -1;
    if (self->max_pos < 0 || self->max_pos > 13 || self->min_run < 1 || self->wild_cap < 0) {
        PyErr_SetString(PyExc_ValueError, "max_pos 0..13, min_run >= 1, wild_cap >= 0");
        return -1;
    }
    /* (the memo last: possible() serves once it is there) */
    PyMem_Free(self->memo);
    self->memo = NULL;
    PyMem_Free(self->rank_values);
    PyMem_Free(self->arena);
    self->rank_values = PyMem_Malloc((1 << 13) * sizeof(int));
    self->level_max = 13 * (size_t)self->nshapes + 4 * 14 * 13;
    self->cap = self->level_max * 8;
    self->arena = PyMem_Malloc(self->cap * sizeof(Move));
    if (self->rank_values == NULL || self->arena == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    if (read_ints(rank_values, 1 << 13, self->rank_values) < 0)
        return -1;
    self->memo = PyMem_Calloc(MEMO_SLOTS, sizeof(Slot));
    if (self->memo == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    self->n_memo = self->top = 0;
    return 0;
}

/* possible(counts, need, need_pure, less, less_wilds): opening_possible on counts less the
 * natural faces of `less` (one each) and `less_wilds` wild cards */
static PyObject *
Opening_possible(Opening *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 5) {
        PyErr_SetString(PyExc_TypeError, "possible(counts, need, need_pure, less, less_wilds)");
        return NULL;
    }
    if (self->memo == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "Opening not initialised");
        return NULL;
    }
    long need = PyLong_AsLong(args[1]);
    if (need == -1 && PyErr_Occurred())
        return NULL;
    int need_pure = PyObject_IsTrue(args[2]);
    if (need_pure < 0)
        return NULL;
    long less_wilds = PyLong_AsLong(args[4]);
    if (less_wilds == -1 && PyErr_Occurred())
        return NULL;
    PyObject *counts = PySequence_Fast(args[0], "counts: a sequence of 53 ints");
    if (counts == NULL)
        return NULL;
    if (PySequence_Fast_GET_SIZE(counts) != NFACES) {
        Py_DECREF(counts);
        PyErr_Format(PyExc_ValueError, "counts: %d ints expected", NFACES);
        return NULL;
    }
    long c[NFACES];
    for (int f = 0; f < NFACES; f++)
        if (int_at(counts, f, &c[f]) < 0) {
            Py_DECREF(counts);
            return NULL;
        }
    PyObject *less = PySequence_Fast(args[3], "less: a sequence of faces");
    if (less == NULL) {
        Py_DECREF(counts);
        return NULL;
    }
    for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(less); i++) {
        long f;
        if (int_at(less, i, &f) < 0) {
            Py_DECREF(less);
            Py_DECREF(counts);
            return NULL;
        }
        if (f < 0 || f >= JOKER) {
            Py_DECREF(less);
            Py_DECREF(counts);
            PyErr_Format(PyExc_ValueError, "less: face %ld is not a natural face 0..51", f);
            return NULL;
        }
        c[f]--;
    }
    Py_DECREF(less);
    c[JOKER] -= less_wilds;
    uint64_t once = 0, twice = 0;
    for (int f = 0; f < NFACES; f++)
        if (c[f] < 0 || (f < JOKER && c[f] > 2) || c[f] > 255) {
            PyObject *shown = PySequence_List(counts);
            Py_DECREF(counts);
            if (shown != NULL) {
                if (f < JOKER)
                    PyErr_Format(PyExc_ValueError,
                                 "face %d: %ld held once the meld's cards are taken from "
                                 "counts %R (allowed: 0-2, at most two of a face: two decks)",
                                 f, c[f], shown);
                else
                    PyErr_Format(PyExc_ValueError,
                                 "wild cards: %ld held once the meld's %ld are taken from "
                                 "counts %R (allowed: 0-255)",
                                 c[f], less_wilds, shown);
                Py_DECREF(shown);
            }
            return NULL;
        } else if (f < JOKER) {
            once |= (uint64_t)(c[f] > 0) << f;
            twice |= (uint64_t)(c[f] > 1) << f;
        }
    Py_DECREF(counts);
    if (need > 1 << 30)
        need = 1 << 30;
    if (need < -(1 << 30))
        need = -(1 << 30);
    self->top = 0;
    int found = answer(self, once, twice, (int)c[JOKER], (int)need, need_pure);
    if (found < 0)
        return NULL;
    return PyBool_FromLong(found);
}

static PyObject *
Opening_clear(Opening *self, PyObject *Py_UNUSED(ignored))
{
    if (self->memo != NULL)
        memset(self->memo, 0, MEMO_SLOTS * sizeof(Slot));
    self->n_memo = 0;
    Py_RETURN_NONE;
}

static PyObject *
Opening_size(Opening *self, PyObject *Py_UNUSED(ignored))
{
    return PyLong_FromSize_t(self->n_memo);
}

static void
Opening_dealloc(Opening *self)
{
    PyMem_Free(self->rank_values);
    PyMem_Free(self->memo);
    PyMem_Free(self->arena);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyMethodDef Opening_methods[] = {
    {"possible", (PyCFunction)(void (*)(void))Opening_possible, METH_FASTCALL,
     "possible(counts, need, need_pure, less, less_wilds): whether the opening can be "
     "reached from counts less the faces of less and less_wilds wild cards"},
    {"clear", (PyCFunction)Opening_clear, METH_NOARGS, "empty the memo"},
    {"size", (PyCFunction)Opening_size, METH_NOARGS, "the hands the memo holds"},
    {NULL},
};

static PyTypeObject OpeningType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "rummy_env._open_c.Opening",
    .tp_basicsize = sizeof(Opening),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "The opening search of one set of meld rules, with its memo "
              "(_melds_opening._Opening).",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Opening_init,
    .tp_dealloc = (destructor)Opening_dealloc,
    .tp_methods = Opening_methods,
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_open_c",
    "The opening search of rummy_env/_melds_opening.py, compiled (rummy_env/_open_c.c).", -1,
    NULL,
};

PyMODINIT_FUNC
PyInit__open_c(void)
{
    if (PyType_Ready(&OpeningType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&module);
    if (m == NULL)
        return NULL;
    Py_INCREF(&OpeningType);
    if (PyModule_AddObject(m, "Opening", (PyObject *)&OpeningType) < 0 ||
        PyModule_AddIntConstant(m, "API", API_VERSION) < 0) {
        Py_DECREF(&OpeningType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
