/* The inner search of rummy_env/cover.py (`_search`'s depth-first `_go`, with and
 * without `any_`, in rummy_env/_cover_search.py) and the initial meld's valued passes
 * (`_values`, rummy_env/_cover_valued.py), compiled.
 *
 * The same steps as the Python code over the same tables (filled lazily by the Python
 * functions `_cl_row`, `_sk_group_order`, `_edges` and the view's `level`), so
 * the two give the same answers. What the Python search reads from tuples and dicts with
 * tuple or int keys this one reads from C:
 *
 * - a number's tables (of the memo object's `cl` per colour, `gl` for groups) are found
 *   by packed integer keys, the next numbers' codes computed here
 *   (_cover_tables._number_codes);
 * - a colour's row of options (`_cl_row`: per number of naturals into groups, the options
 *   `(runs id, nr, e, dn, de, ...)`) and a number's group choices (`_gl_fit`: those of
 *   `_sk_group_order` for which every colour has an option) are copied, the first time
 *   they are read, into C arrays;
 * - these are kept in hash maps, each entry holding the Python objects it names and the
 *   table it came from (so no address is reused while an entry names it); the maps are
 *   the process's, serving the searches of every memo object (a table's contents
 *   depend on its key alone, the runs' ids being process-wide too), and are emptied,
 *   between searches, past `MAP_LIMIT` entries or by `clear()` (cover.clear_caches);
 * - the memos of the searches are `Memo` objects (_cover_search._state_memo() makes them
 *   when this module serves; the Python search uses dicts): per state after a number (a 64-bit
 *   key) the way found from it (a Python object) or the codes that failed from it (bits).
 *
 * cover.py uses this module when it was built and the Python code otherwise
 * (RUMMY_PURE_PYTHON=1 forces it; the tests run both). Optional: an install without a C
 * compiler still works, at the Python speed.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>

#define API_VERSION 8
#define MAP_LIMIT 50000 /* entries of a map of tables before they are all emptied */

/* ------------------------------------------------------------------ hash map
 * Open addressing, keys (tag, k) with tag != 0, values a pointer or bits. */
typedef struct {
    uintptr_t tag;
    uint64_t k;
    uintptr_t v;
} Ent;

typedef struct {
    Ent *t;
    size_t mask, n; /* capacity - 1 (a power of two less one), entries */
} Map;

static inline size_t
slot(const Map *m, uintptr_t tag, uint64_t k)
{
    uint64_t h = (uint64_t)tag * 0x9E3779B97F4A7C15ULL ^ k * 0xC2B2AE3D27D4EB4FULL;
    h ^= h >> 31;
    return (size_t)(h * 0x94D049BB133111EBULL >> 17) & m->mask;
}

/* the entry of (tag, k), or NULL */
static inline Ent *
map_find(const Map *m, uintptr_t tag, uint64_t k)
{
    if (m->t == NULL)
        return NULL;
    for (size_t i = slot(m, tag, k);; i = (i + 1) & m->mask) {
        Ent *e = &m->t[i];
        if (e->tag == tag && e->k == k)
            return e;
        if (e->tag == 0)
            return NULL;
    }
}

static int map_put(Map *m, uintptr_t tag, uint64_t k, uintptr_t v);

static int
map_grow(Map *m)
{
    size_t cap = m->t == NULL ? 64 : (m->mask + 1) * 2;
    Ent *old = m->t;
    size_t oldcap = m->t == NULL ? 0 : m->mask + 1;
    Ent *t = PyMem_Calloc(cap, sizeof(Ent));
    if (t == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    m->t = t, m->mask = cap - 1, m->n = 0;
    for (size_t i = 0; i < oldcap; i++)
        if (old[i].tag)
            map_put(m, old[i].tag, old[i].k, old[i].v);
    PyMem_Free(old);
    return 0;
}

/* set (tag, k) to v (a new key, or an existing one) */
static int
map_put(Map *m, uintptr_t tag, uint64_t k, uintptr_t v)
{
    if ((m->t == NULL || (m->n + 1) * 2 > m->mask + 1) && map_grow(m))
        return -1;
    for (size_t i = slot(m, tag, k);; i = (i + 1) & m->mask) {
        Ent *e = &m->t[i];
        if (e->tag == 0) {
            e->tag = tag, e->k = k, e->v = v;
            m->n++;
            return 0;
        }
        if (e->tag == tag && e->k == k) {
            e->v = v;
            return 0;
        }
    }
}

/* ------------------------------------------------------------------ rows, groups */
typedef struct {
    int16_t s, nr, e, dn, de;
    PyObject *obj; /* the option tuple (held by the row) */
} Opt;

/* the head of a map's entry: the Python object copied and the table it came from, held */
typedef struct {
    PyObject *obj, *table;
} Held;

typedef struct {
    Held h; /* the row tuple, the colour's table */
    uint64_t mask;
    int start[16]; /* the options with g naturals into groups: start[g] .. start[g + 1] */
    Opt opts[];
} Row;

typedef struct {
    int16_t g[4], cn, cx;
    PyObject *obj; /* the choice tuple (held by `groups`) */
} Choice;

typedef struct {
    Held h; /* the choices tuple, the number's group table */
    Py_ssize_t n;
    Choice ch[];
} Groups;

static Map rows_map, groups_map, orders_map; /* orders: (group table, jokers left) */
static Map tables_map; /* the tables of the memo's cl (tag 1) and gl (tag 2) by a packed key */

static void
free_held(Held *h)
{
    Py_DECREF(h->obj);
    Py_DECREF(h->table);
    PyMem_Free(h);
}

/* copy `h` (made from `obj` of `table`, NULL on an error) into `m` at (table, k) */
static Held *
keep(Map *m, PyObject *table, uint64_t k, PyObject *obj, Held *h)
{
    if (h == NULL)
        return NULL;
    Py_INCREF(obj);
    Py_INCREF(table);
    h->obj = obj, h->table = table;
    if (map_put(m, (uintptr_t)table, k, (uintptr_t)h)) {
        free_held(h);
        return NULL;
    }
    return h;
}

static void
drop_map(Map *m)
{
    for (size_t i = 0; m->t != NULL && i <= m->mask; i++)
        if (m->t[i].tag)
            free_held((Held *)m->t[i].v);
    PyMem_Free(m->t);
    m->t = NULL, m->n = m->mask = 0;
}

static void
drop_rows(void)
{
    drop_map(&rows_map);
    drop_map(&groups_map);
    drop_map(&orders_map);
    drop_map(&tables_map);
}

static inline long
item(PyObject *t, Py_ssize_t i)
{
    return PyLong_AsLong(PyTuple_GET_ITEM(t, i));
}

/* Row from a `_cl_row` tuple `(mask, lists)` (its head not set) */
static Row *
make_row(PyObject *r)
{
    PyObject *lists = PyTuple_GET_ITEM(r, 1);
    Py_ssize_t ng = PyTuple_GET_SIZE(lists), total = 0;
    if (ng > 15) {
        PyErr_SetString(PyExc_ValueError, "too many copies of a tile for the compiled search");
        return NULL;
    }
    for (Py_ssize_t g = 0; g < ng; g++)
        total += PyTuple_GET_SIZE(PyTuple_GET_ITEM(lists, g));
    Row *row = PyMem_Malloc(sizeof(Row) + total * sizeof(Opt));
    if (row == NULL) {
        PyErr_NoMemory();
        return NULL;
    }
    row->mask = PyLong_AsUnsignedLongLong(PyTuple_GET_ITEM(r, 0));
    int j = 0;
    for (Py_ssize_t g = 0; g < ng; g++) {
        row->start[g] = j;
        PyObject *lst = PyTuple_GET_ITEM(lists, g);
        for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(lst); i++, j++) {
            PyObject *o = PyTuple_GET_ITEM(lst, i);
            Opt *p = &row->opts[j];
            p->s = (int16_t)item(o, 0), p->nr = (int16_t)item(o, 1), p->e = (int16_t)item(o, 2);
            p->dn = (int16_t)item(o, 3), p->de = (int16_t)item(o, 4), p->obj = o;
        }
    }
    row->start[ng] = j;
    if (PyErr_Occurred()) {
        PyMem_Free(row);
        return NULL;
    }
    return row;
}

/* Groups from a `_gl_fit` tuple of choices (its head not set) */
static Groups *
make_groups(PyObject *groups)
{
    Py_ssize_t n = PyTuple_GET_SIZE(groups);
    Groups *out = PyMem_Malloc(sizeof(Groups) + n * sizeof(Choice));
    if (out == NULL) {
        PyErr_NoMemory();
        return NULL;
    }
    out->n = n;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *choice = PyTuple_GET_ITEM(groups, i), *gs = PyTuple_GET_ITEM(choice, 0);
        Choice *c = &out->ch[i];
        for (int j = 0; j < 4; j++)
            c->g[j] = (int16_t)item(gs, j);
        c->cn = (int16_t)item(choice, 1), c->cx = (int16_t)item(choice, 2), c->obj = choice;
    }
    if (PyErr_Occurred()) {
        PyMem_Free(out);
        return NULL;
    }
    return out;
}

/* ------------------------------------------------------------------ Memo */
typedef struct {
    PyObject_HEAD Map map; /* tag 1: key | code -> way (held); tag 2: key -> failed codes */
} Memo;

static void
memo_dealloc(Memo *self)
{
    for (size_t i = 0; self->map.t != NULL && i <= self->map.mask; i++)
        if (self->map.t[i].tag == 1)
            Py_DECREF((PyObject *)self->map.t[i].v);
    PyMem_Free(self->map.t);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyTypeObject MemoType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "rummy_env._cover_c.Memo",
    .tp_doc = "A search's memo: per state the way found from it, or the codes that failed.",
    .tp_basicsize = sizeof(Memo),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_dealloc = (destructor)memo_dealloc,
};

static inline PyObject *
memo_way(Memo *m, uint64_t key)
{
    Ent *e = map_find(&m->map, 1, key);
    return e == NULL ? NULL : (PyObject *)e->v;
}

static inline uint64_t
memo_failed(Memo *m, uint64_t key)
{
    Ent *e = map_find(&m->map, 2, key);
    return e == NULL ? 0 : (uint64_t)e->v;
}

/* holds a new reference to way (and drops the one it replaces, if any) */
static inline int
memo_set_way(Memo *m, uint64_t key, PyObject *way)
{
    Ent *e = map_find(&m->map, 1, key);
    if (e != NULL) {
        PyObject *old = (PyObject *)e->v;
        Py_INCREF(way);
        e->v = (uintptr_t)way;
        Py_DECREF(old);
        return 0;
    }
    Py_INCREF(way);
    if (map_put(&m->map, 1, key, (uintptr_t)way)) {
        Py_DECREF(way);
        return -1;
    }
    return 0;
}

/* ------------------------------------------------------------------ search */
typedef struct {
    PyObject *cl;       /* the view's list: per number index (c0, c1, c2, c3, gtab) */
    PyObject *m, *caps, *order; /* the view's naturals (mandatory, all) and order */
    long hi, jt, cap, need_x, from_k;
    long long left;     /* states still allowed (from -1: no limit) */
    Memo *shared, *local;
    uint64_t worse[16];
    PyObject *row_of, *order_of, *exc;
    PyObject *level;               /* the view's level(k), for a miss */
    PyObject *cl_memo, *gl_memo;   /* the memo object's cl, gl */
    /* with any_: per number index the colours of the faces to use (bits), the last
     * such index, the memo of failures of states that used none, and of their ways */
    long um[16], last;
    Memo *unused, *found;
} Ctx;

/* _cover_tables._number_codes of the view's number index j (with _run_only) */
static void
codes_of(const Ctx *cx, long j, long *out)
{
    PyObject *mt = PyList_GET_ITEM(cx->m, j), *ct = PyList_GET_ITEM(cx->caps, j);
    long m[4], cp[4];
    int have = 0;
    for (int c = 0; c < 4; c++) {
        m[c] = item(mt, c), cp[c] = item(ct, c);
        have += cp[c] > 0;
    }
    int none = have > 2 || (have == 2 && cx->jt);
    long f = j == cx->hi ? 2 : 1;
    for (int c = 0; c < 4; c++) {
        int others = have - (cp[c] > 0);
        long must = !none && (others == 0 || (others == 1 && !cx->jt)) ? m[c] : 0;
        out[c] = (cp[c] * 64 + must) * 2 + f;
    }
}

/* the table of `key` in `memo` (the memo's cl or gl; borrowed), kept in the tables map at
 * (tag, packed) once found there; NULL when missing (an error set if that failed) */
static PyObject *
table_at(PyObject *memo, PyObject *key, uintptr_t tag, uint64_t packed)
{
    if (key == NULL)
        return NULL;
    PyObject *got = PyDict_GetItemWithError(memo, key);
    Py_DECREF(key);
    if (got == NULL)
        return NULL;
    Held *h = PyMem_Malloc(sizeof(Held));
    if (h == NULL) {
        PyErr_NoMemory();
        return NULL;
    }
    Py_INCREF(got);
    Py_INCREF(got);
    h->obj = h->table = got;
    if (map_put(&tables_map, tag, packed, (uintptr_t)h)) {
        free_held(h);
        return NULL;
    }
    return got;
}

/* view.level(k): the number's tables, each colour's of the memo's cl and the group table of
 * its gl (as _cover_tables._colour_tables reads them; kept by packed keys), else the Python
 * method; stored in cl (borrowed) */
static PyObject *
level_at(Ctx *cx, long k)
{
    long a[4] = {0, 0, 0, 0}, b[4] = {0, 0, 0, 0};
    int last = k >= cx->hi;
    if (!last) {
        codes_of(cx, k + 1, a);
        if (k + 2 <= cx->hi)
            codes_of(cx, k + 2, b);
    }
    PyObject *cp = PyList_GET_ITEM(cx->caps, k), *mk = PyList_GET_ITEM(cx->m, k);
    long order = PyLong_AsLong(cx->order), caps[4];
    PyObject *got[5];
    for (int c = 0; c < 4; c++) {
        long cap = caps[c] = item(cp, c), mc = item(mk, c), ab = a[c] << 16 | b[c];
        if (cap > 15 || order < 0 || order > 255)
            goto miss;
        uint64_t packed = (uint64_t)cap | (uint64_t)last << 4 | (uint64_t)mc << 5 |
                          (uint64_t)ab << 9 | (uint64_t)order << 41;
        Ent *e = map_find(&tables_map, 1, packed);
        if (e != NULL) {
            got[c] = ((Held *)e->v)->obj;
            continue;
        }
        PyObject *abo = PyLong_FromLong(ab);
        if (abo == NULL)
            return NULL;
        PyObject *key = PyTuple_Pack(5, PyTuple_GET_ITEM(cp, c), last ? Py_True : Py_False,
                                     PyTuple_GET_ITEM(mk, c), abo, cx->order);
        Py_DECREF(abo);
        if ((got[c] = table_at(cx->cl_memo, key, 1, packed)) == NULL)
            goto miss;
    }
    uint64_t gpacked = (uint64_t)(caps[0] | caps[1] << 4 | caps[2] << 8 | caps[3] << 12) |
                       (uint64_t)order << 16;
    Ent *e = map_find(&tables_map, 2, gpacked);
    if (e != NULL)
        got[4] = ((Held *)e->v)->obj;
    else if ((got[4] = table_at(cx->gl_memo, PyTuple_Pack(2, cp, cx->order), 2, gpacked)) == NULL)
        goto miss;
    PyObject *lev = PyTuple_Pack(5, got[0], got[1], got[2], got[3], got[4]);
    if (lev == NULL || PyList_SetItem(cx->cl, k, lev))
        return NULL;
    return lev;
miss: /* a table not made yet: the Python method makes it (and stores it in cl) */
    if (PyErr_Occurred())
        return NULL;
    PyObject *r = PyObject_CallFunction(cx->level, "l", k);
    if (r == NULL)
        return NULL;
    Py_DECREF(r);
    return PyList_GET_ITEM(cx->cl, k);
}

/* one colour's row: the row map, else col[0].get(s * 4 + gl) or row_of(col, s, gl) */
static Row *
row(Ctx *cx, PyObject *col, long s, long gl)
{
    uint64_t rk = (uint64_t)(s * 4 + gl);
    Ent *e = map_find(&rows_map, (uintptr_t)col, rk);
    if (e != NULL)
        return (Row *)e->v;
    PyObject *key = PyLong_FromUnsignedLongLong(rk);
    if (key == NULL)
        return NULL;
    PyObject *r = PyDict_GetItemWithError(PyList_GET_ITEM(col, 0), key);
    Py_DECREF(key);
    if (r != NULL)
        Py_INCREF(r);
    else if (PyErr_Occurred() || (r = PyObject_CallFunction(cx->row_of, "Oll", col, s, gl)) == NULL)
        return NULL;
    Row *out = (Row *)keep(&rows_map, col, rk, r, (Held *)make_row(r));
    Py_DECREF(r);
    return out;
}

/* a number's group choices for the colours' masks `mk` (_cover_tables._gl_fit): the group map,
 * else those of every choice there with `gl` jokers left (_cover_tables._sk_group_order, copied
 * once per table and `gl`) for which each colour has an option, in that order */
static Groups *
groups_for(Ctx *cx, PyObject *gtab, uint64_t gkey, const uint64_t *mk, long gl)
{
    Ent *e = map_find(&groups_map, (uintptr_t)gtab, gkey);
    if (e != NULL)
        return (Groups *)e->v;
    Groups *all;
    if ((e = map_find(&orders_map, (uintptr_t)gtab, (uint64_t)gl)) != NULL)
        all = (Groups *)e->v;
    else {
        PyObject *meta = PyList_GET_ITEM(gtab, 1); /* (caps, order) */
        PyObject *ordered = PyObject_CallFunction(cx->order_of, "OlO", PyTuple_GET_ITEM(meta, 0),
                                                  gl, PyTuple_GET_ITEM(meta, 1));
        if (ordered == NULL)
            return NULL;
        all = (Groups *)keep(&orders_map, gtab, (uint64_t)gl, ordered,
                             (Held *)make_groups(ordered));
        Py_DECREF(ordered);
        if (all == NULL)
            return NULL;
    }
    Groups *out = PyMem_Malloc(sizeof(Groups) + all->n * sizeof(Choice));
    if (out == NULL) {
        PyErr_NoMemory();
        return NULL;
    }
    out->n = 0;
    for (Py_ssize_t i = 0; i < all->n; i++) {
        const Choice *c = &all->ch[i];
        if (mk[0] >> c->g[0] & mk[1] >> c->g[1] & mk[2] >> c->g[2] & mk[3] >> c->g[3] & 1)
            out->ch[out->n++] = *c;
    }
    /* the choices are those of the ordered tuple, which the entry holds */
    return (Groups *)keep(&groups_map, gtab, gkey, all->h.obj, (Held *)out);
}

/* ((choice, a, b, c, d), rest): a new reference */
static PyObject *
step(const Choice *ch, const Opt *a, const Opt *b, const Opt *c, const Opt *d, PyObject *rest)
{
    PyObject *st = PyTuple_Pack(5, ch->obj, a->obj, b->obj, c->obj, d->obj);
    if (st == NULL)
        return NULL;
    PyObject *out = PyTuple_Pack(2, st, rest);
    Py_DECREF(st);
    return out;
}

/* The way on from state (s0..s3, n jokers needed, x placeable) before number index k, or
 * None (a new reference; NULL on an error or _OutOfBudget). `used`: with any_, the
 * way so far has used one of the faces (always 1 without it). */
static PyObject *
go(Ctx *cx, long k, long s0, long s1, long s2, long s3, long n, long x, int used)
{
    if (--cx->left == 0) {
        PyErr_SetNone(cx->exc);
        return NULL;
    }
    long gl = cx->jt - n;
    PyObject *lev = PyList_GET_ITEM(cx->cl, k);
    if (lev == Py_None && (lev = level_at(cx, k)) == NULL) /* looked up the first time */
        return NULL;
    long sid[4] = {s0, s1, s2, s3};
    Row *r[4];
    uint64_t mk[4];
    for (int i = 0; i < 4; i++) {
        if ((r[i] = row(cx, PyTuple_GET_ITEM(lev, i), sid[i], gl)) == NULL)
            return NULL;
        mk[i] = r[i]->mask;
    }
    uint64_t gkey = ((((mk[0] << 14 | mk[1]) << 14 | mk[2]) << 14 | mk[3]) << 2) | (uint64_t)gl;
    Groups *groups = groups_for(cx, PyTuple_GET_ITEM(lev, 4), gkey, mk, gl);
    if (groups == NULL)
        return NULL;
    int fin = k == cx->hi;
    long k1 = k + 1;
    Memo *mm = k1 > cx->from_k ? cx->shared : cx->local;
    long u = 0, m0 = 0, m1 = 0, m2 = 0, m3 = 0;
    if (!used) {
        u = cx->um[k];
        PyObject *mt = PyList_GET_ITEM(cx->m, k);
        m0 = item(mt, 0), m1 = item(mt, 1), m2 = item(mt, 2), m3 = item(mt, 3);
    }
    const Row *r0 = r[0], *r1 = r[1], *r2 = r[2], *r3 = r[3];
    for (Py_ssize_t gi = 0; gi < groups->n; gi++) {
        const Choice *ch = &groups->ch[gi];
        long rest = gl - ch->cn;
        const Opt *a0 = r0->opts + r0->start[ch->g[0]], *a1 = r0->opts + r0->start[ch->g[0] + 1];
        const Opt *b0 = r1->opts + r1->start[ch->g[1]], *b1 = r1->opts + r1->start[ch->g[1] + 1];
        const Opt *c0 = r2->opts + r2->start[ch->g[2]], *c1 = r2->opts + r2->start[ch->g[2] + 1];
        const Opt *d0 = r3->opts + r3->start[ch->g[3]], *d1 = r3->opts + r3->start[ch->g[3] + 1];
        if (b0 == b1 || c0 == c1 || d0 == d1)
            continue;
        for (const Opt *a = a0; a < a1; a++) {
            long ea = a->e;
            if (ea > rest)
                continue;
            long na = ch->cn + a->dn, xa = ch->cx + a->de;
            uint64_t ka = ((uint64_t)k1 << 12 | (uint64_t)a->s) << 12;
            int ua = used || (u & 1 && ch->g[0] + a->nr > m0);
            for (const Opt *b = b0; b < b1; b++) {
                long eab = ea + b->e;
                if (eab > rest)
                    continue;
                long nb = na + b->dn, xb = xa + b->de;
                uint64_t kb = (ka | (uint64_t)b->s) << 12;
                int ub = ua || (u & 2 && ch->g[1] + b->nr > m1);
                for (const Opt *c = c0; c < c1; c++) {
                    long eabc = eab + c->e;
                    if (eabc > rest)
                        continue;
                    long nc = nb + c->dn, xc = xb + c->de;
                    uint64_t kc = (kb | (uint64_t)c->s) << 12;
                    int uc = ub || (u & 4 && ch->g[2] + c->nr > m2);
                    for (const Opt *d = d0; d < d1; d++) {
                        if (eabc + d->e > rest)
                            continue;
                        int ud = uc || (u & 8 && ch->g[3] + d->nr > m3);
                        long dn = nc + d->dn;
                        long x2 = x + dn + xc + d->de;
                        if (x2 > cx->cap)
                            x2 = cx->cap;
                        if (fin) {
                            if (ud && x2 >= cx->need_x)
                                return step(ch, a, b, c, d, Py_None);
                            continue;
                        }
                        if (!ud && k1 > cx->last)
                            continue; /* none of the faces left to use */
                        long n2 = n + dn;
                        uint64_t key = (kc | (uint64_t)d->s) << 4;
                        long code = n2 * 4 + x2;
                        /* with any_: states that used none keep their own memos */
                        Memo *memo = ud ? mm : cx->unused;
                        PyObject *sub = memo_way(memo, key | (uint64_t)code);
                        if (sub == NULL && !ud)
                            sub = memo_way(cx->found, key | (uint64_t)code);
                        if (sub != NULL) {
                            Py_INCREF(sub);
                        }
                        else {
                            /* the codes that failed from this state, as bits */
                            uint64_t fails = memo_failed(memo, key);
                            if (fails >> code & 1)
                                continue;
                            sub = go(cx, k1, a->s, b->s, c->s, d->s, n2, x2, ud);
                            if (sub == NULL)
                                return NULL;
                            int err;
                            if (sub == Py_None) /* (go wrote no key of this number) */
                                err = map_put(&memo->map, 2, key, fails | cx->worse[code]);
                            else
                                err = memo_set_way(ud ? memo : cx->found,
                                                   key | (uint64_t)code, sub);
                            if (err) {
                                Py_DECREF(sub);
                                return NULL;
                            }
                        }
                        if (sub != Py_None) {
                            PyObject *out = step(ch, a, b, c, d, sub);
                            Py_DECREF(sub);
                            return out;
                        }
                        Py_DECREF(sub);
                    }
                }
            }
        }
    }
    Py_RETURN_NONE;
}

/* the view's fields the search reads (interned at import) */
#define N_FIELDS 7
static const char *field_strs[N_FIELDS] = {"cl", "m", "caps", "order", "jt", "hi", "level"};
static PyObject *field_names[N_FIELDS];

static PyObject *
search(PyObject *self, PyObject *args)
{
    (void)self;
    Ctx cx;
    PyObject *view, *worse, *any;
    long k, s0, s1, s2, s3, n, x;
    if (!PyArg_ParseTuple(args, "OlllLO!O!O!OOOO!O!(lllllll)O", &view, &cx.cap, &cx.need_x,
                          &cx.from_k, &cx.left, &MemoType, &cx.shared, &MemoType, &cx.local,
                          &PyList_Type, &worse, &cx.row_of, &cx.order_of, &cx.exc, &PyDict_Type,
                          &cx.cl_memo, &PyDict_Type, &cx.gl_memo, &k, &s0, &s1, &s2, &s3, &n,
                          &x, &any))
        return NULL;
    if (PyList_GET_SIZE(worse) != 16) {
        PyErr_SetString(PyExc_ValueError, "worse: 16 codes");
        return NULL;
    }
    for (int i = 0; i < 16; i++)
        cx.worse[i] = PyLong_AsUnsignedLongLong(PyList_GET_ITEM(worse, i));
    int used = 1;
    cx.last = -1;
    cx.unused = cx.found = NULL;
    if (any != Py_None) { /* any_: (um, last, unused) */
        PyObject *um;
        if (!PyArg_ParseTuple(any, "O!lO!", &PyList_Type, &um, &cx.last, &MemoType, &cx.unused))
            return NULL;
        if (PyList_GET_SIZE(um) > 16) {
            PyErr_SetString(PyExc_ValueError, "um: 13 numbers");
            return NULL;
        }
        for (Py_ssize_t i = 0; i < PyList_GET_SIZE(um); i++)
            cx.um[i] = PyLong_AsLong(PyList_GET_ITEM(um, i));
        used = 0;
    }
    if (PyErr_Occurred())
        return NULL;
    if (rows_map.n > MAP_LIMIT || groups_map.n > MAP_LIMIT || orders_map.n > MAP_LIMIT ||
        tables_map.n > MAP_LIMIT)
        drop_rows(); /* between searches: no row is in use */
    /* the view's fields (its __slots__), held for the call */
    PyObject *f[N_FIELDS] = {NULL};
    PyObject *result = NULL;
    for (int i = 0; i < N_FIELDS; i++)
        if ((f[i] = PyObject_GetAttr(view, field_names[i])) == NULL)
            goto done;
    for (int i = 0; i < 3; i++)
        if (!PyList_Check(f[i])) {
            PyErr_Format(PyExc_TypeError, "view.%U is not a list", field_names[i]);
            goto done;
        }
    cx.cl = f[0], cx.m = f[1], cx.caps = f[2], cx.order = f[3], cx.level = f[6];
    cx.jt = PyLong_AsLong(f[4]);
    cx.hi = PyLong_AsLong(f[5]);
    if (PyErr_Occurred())
        goto done;
    if (!used) {
        if ((cx.found = PyObject_New(Memo, &MemoType)) == NULL)
            goto done;
        cx.found->map.t = NULL, cx.found->map.n = cx.found->map.mask = 0;
    }
    result = go(&cx, k, s0, s1, s2, s3, n, x, used);
done:
    Py_XDECREF(cx.found);
    for (int i = 0; i < N_FIELDS; i++)
        Py_XDECREF(f[i]);
    return result;
}


/* ------------------------------------------------------------------ valued pass
 * _cover_valued._values' forward and backward passes (the best value of a split through
 * each optional face), over the same states (tuples (runs, jokers used)) and edges
 * (_cover_valued._edges), in Python dicts as there. */
typedef struct {
    PyObject *s, *s2, *u; /* held */
    long add;
} Edge;

typedef struct {
    Edge *e;
    Py_ssize_t n, cap;
} Edges;

static int
edges_add(Edges *es, PyObject *s, PyObject *s2, long add, PyObject *u)
{
    if (es->n == es->cap) {
        Py_ssize_t cap = es->cap ? es->cap * 2 : 256;
        Edge *e = PyMem_Realloc(es->e, cap * sizeof(Edge));
        if (e == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        es->e = e, es->cap = cap;
    }
    Py_INCREF(s);
    Py_INCREF(s2);
    Py_INCREF(u);
    es->e[es->n++] = (Edge){s, s2, u, add};
    return 0;
}

static void
edges_free(Edges *es)
{
    for (Py_ssize_t i = 0; i < es->n; i++) {
        Py_DECREF(es->e[i].s);
        Py_DECREF(es->e[i].s2);
        Py_DECREF(es->e[i].u);
    }
    PyMem_Free(es->e);
}

/* d[key] = val when it is more than d.get(key, -1); -1 on an error */
static PyObject *zero; /* 0, made at import */

static int
keep_max(PyObject *d, PyObject *key, long val)
{
    PyObject *old = PyDict_GetItemWithError(d, key);
    if (old == NULL && PyErr_Occurred())
        return -1;
    if (old != NULL && PyLong_AsLong(old) >= val)
        return 0;
    PyObject *v = PyLong_FromLong(val);
    if (v == NULL)
        return -1;
    int rc = PyDict_SetItem(d, key, v);
    Py_DECREF(v);
    return rc;
}

static PyObject *
valued(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *levels, *edges_memo, *edges_of, *start;
    long lo, hi, jt, jm, opt_joker, joker;
    if (!PyArg_ParseTuple(args, "O!llllllO!OO", &PyList_Type, &levels, &lo, &hi, &jt, &jm,
                          &opt_joker, &joker, &PyDict_Type, &edges_memo, &edges_of, &start))
        return NULL;
    Py_ssize_t nl = hi - lo + 1;
    if (lo < 0 || nl < 1 || hi >= PyList_GET_SIZE(levels)) {
        PyErr_SetString(PyExc_ValueError, "valued: numbers lo..hi of the levels");
        return NULL;
    }
    PyObject **fwd = PyMem_Calloc(nl + 1, sizeof(PyObject *));
    Edges *es = PyMem_Calloc(nl, sizeof(Edges));
    PyObject *out = NULL, *bwd = NULL, *result = NULL;
    if (fwd == NULL || es == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    if ((fwd[0] = PyDict_New()) == NULL || PyDict_SetItem(fwd[0], start, zero))
        goto done;
    for (Py_ssize_t i = 0; i < nl; i++) { /* forward */
        long k = lo + i, rem = hi - k < 2 ? hi - k : 2, num = k + 1;
        PyObject *lv = PyList_GET_ITEM(levels, k);
        PyObject *m = PyTuple_GET_ITEM(lv, 0), *o = PyTuple_GET_ITEM(lv, 1);
        PyObject *nw = fwd[i + 1] = PyDict_New();
        if (nw == NULL)
            goto done;
        Py_ssize_t pos = 0;
        PyObject *s, *v;
        while (PyDict_Next(fwd[i], &pos, &s, &v)) {
            long val0 = PyLong_AsLong(v), ju = PyLong_AsLong(PyTuple_GET_ITEM(s, 1));
            PyObject *runs = PyTuple_GET_ITEM(s, 0);
            PyObject *jl = PyLong_FromLong(jt - ju), *rm = PyLong_FromLong(rem);
            PyObject *key = jl && rm ? PyTuple_Pack(5, runs, m, o, jl, rm) : NULL;
            Py_XDECREF(jl);
            Py_XDECREF(rm);
            if (key == NULL)
                goto done;
            PyObject *E = PyDict_GetItemWithError(edges_memo, key);
            if (E != NULL)
                Py_INCREF(E);
            else if (!PyErr_Occurred())
                E = PyObject_CallOneArg(edges_of, key);
            Py_DECREF(key);
            if (E == NULL)
                goto done;
            for (Py_ssize_t j = 0; j < PyTuple_GET_SIZE(E); j++) {
                PyObject *ed = PyTuple_GET_ITEM(E, j); /* (runs2, dj, tiles, u) */
                long dj = PyLong_AsLong(PyTuple_GET_ITEM(ed, 1));
                long add = num * PyLong_AsLong(PyTuple_GET_ITEM(ed, 2));
                PyObject *ju2 = PyLong_FromLong(ju + dj);
                PyObject *s2 = ju2 ? PyTuple_Pack(2, PyTuple_GET_ITEM(ed, 0), ju2) : NULL;
                Py_XDECREF(ju2);
                int bad = s2 == NULL || edges_add(&es[i], s, s2, add, PyTuple_GET_ITEM(ed, 3)) ||
                          keep_max(nw, s2, val0 + add);
                Py_XDECREF(s2);
                if (bad) {
                    Py_DECREF(E);
                    goto done;
                }
            }
            Py_DECREF(E);
        }
        if (PyErr_Occurred())
            goto done;
        if (PyDict_GET_SIZE(nw) == 0) { /* no way through */
            result = PyDict_New();
            goto done;
        }
    }
    if ((out = PyDict_New()) == NULL || (bwd = PyDict_New()) == NULL)
        goto done;
    Py_ssize_t pos = 0;
    PyObject *s, *v;
    long best_joker = -1;
    while (PyDict_Next(fwd[nl], &pos, &s, &v)) {
        long ju = PyLong_AsLong(PyTuple_GET_ITEM(s, 1));
        if (opt_joker && ju >= jm + 1 && PyLong_AsLong(v) > best_joker)
            best_joker = PyLong_AsLong(v);
        if (ju >= jm && PyDict_SetItem(bwd, s, zero))
            goto done;
    }
    if (best_joker >= 0) {
        PyObject *bj = PyLong_FromLong(best_joker), *jk = PyLong_FromLong(joker);
        int bad = bj == NULL || jk == NULL || PyDict_SetItem(out, jk, bj);
        Py_XDECREF(bj);
        Py_XDECREF(jk);
        if (bad)
            goto done;
    }
    for (Py_ssize_t i = nl - 1; i >= 0; i--) { /* backward */
        long k = lo + i;
        PyObject *lv = PyList_GET_ITEM(levels, k);
        PyObject *m = PyTuple_GET_ITEM(lv, 0), *o = PyTuple_GET_ITEM(lv, 1);
        long want[4], face[4];
        int nw = 0;
        for (int c = 0; c < 4; c++)
            if (PyLong_AsLong(PyTuple_GET_ITEM(o, c))) {
                want[nw] = c | (PyLong_AsLong(PyTuple_GET_ITEM(m, c)) + 1) << 3;
                face[nw++] = c * 13 + k;
            }
        PyObject *back = PyDict_New();
        if (back == NULL)
            goto done;
        for (Py_ssize_t j = 0; j < es[i].n; j++) {
            Edge *e = &es[i].e[j];
            PyObject *tail = PyDict_GetItemWithError(bwd, e->s2);
            if (tail == NULL) {
                if (PyErr_Occurred()) {
                    Py_DECREF(back);
                    goto done;
                }
                continue;
            }
            long val = e->add + PyLong_AsLong(tail);
            if (keep_max(back, e->s, val)) {
                Py_DECREF(back);
                goto done;
            }
            long pre = -1;
            for (int w = 0; w < nw; w++) {
                long c = want[w] & 7, need = want[w] >> 3;
                if (PyLong_AsLong(PyTuple_GET_ITEM(e->u, c)) < need)
                    continue;
                if (pre < 0) {
                    PyObject *p = PyDict_GetItemWithError(fwd[i], e->s);
                    if (p == NULL) {
                        Py_DECREF(back);
                        if (!PyErr_Occurred())
                            PyErr_SetString(PyExc_KeyError, "valued: a state not reached");
                        goto done;
                    }
                    pre = PyLong_AsLong(p);
                }
                PyObject *t = PyLong_FromLong(face[w]);
                int bad = t == NULL || keep_max(out, t, pre + val);
                Py_XDECREF(t);
                if (bad) {
                    Py_DECREF(back);
                    goto done;
                }
            }
        }
        Py_SETREF(bwd, back);
    }
    if (!PyErr_Occurred()) {
        result = out;
        out = NULL;
    }
done:
    Py_XDECREF(out);
    Py_XDECREF(bwd);
    for (Py_ssize_t i = 0; fwd != NULL && i <= nl; i++)
        Py_XDECREF(fwd[i]);
    for (Py_ssize_t i = 0; es != NULL && i < nl; i++)
        edges_free(&es[i]);
    PyMem_Free(fwd);
    PyMem_Free(es);
    return result;
}

static PyObject *
clear(PyObject *self, PyObject *args)
{
    (void)self, (void)args;
    drop_rows();
    Py_RETURN_NONE;
}

static PyObject *
sizes(PyObject *self, PyObject *args)
{
    (void)self, (void)args;
    return Py_BuildValue("nn", (Py_ssize_t)rows_map.n, (Py_ssize_t)(groups_map.n + orders_map.n));
}

static PyMethodDef methods[] = {
    {"search", search, METH_VARARGS,
     "search(view, cap, need_x, from_k, budget, shared, local, worse, row_of, order_of, exc, "
     "cl, gl, (k, s0, s1, s2, s3, n, x), any): _cover_search._go "
     "from that state (shared, local: Memo); any: None, or _search's any_ = (um, last, "
     "unused)."},
    {"valued", valued, METH_VARARGS,
     "valued(levels, lo, hi, jt, jm, optional_joker, joker, edges_memo, edges_of, start): "
     "_cover_valued._values' passes: {face: best value of a split through it}."},
    {"clear", clear, METH_NOARGS, "Empty the compiled copies of the rows and group tables."},
    {"sizes", sizes, METH_NOARGS, "(rows, group tables) copied now."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_cover_c",
                                    "The compiled inner searches of rummy_env.cover.", -1,
                                    methods};

PyMODINIT_FUNC
PyInit__cover_c(void)
{
    if (PyType_Ready(&MemoType) < 0 || (zero == NULL && (zero = PyLong_FromLong(0)) == NULL))
        return NULL;
    for (int i = 0; i < N_FIELDS; i++)
        if (field_names[i] == NULL && (field_names[i] = PyUnicode_InternFromString(field_strs[i])) == NULL)
            return NULL;
    PyObject *m = PyModule_Create(&module);
    if (m == NULL)
        return NULL;
    Py_INCREF(&MemoType);
    /* the call's form; cover.py ignores a build whose API is not its own (a stale .so) */
    if (PyModule_AddObject(m, "Memo", (PyObject *)&MemoType) ||
        PyModule_AddIntConstant(m, "API", API_VERSION)) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
