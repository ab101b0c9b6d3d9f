/* The inner search of rummy_env/cover.py (`_search`'s depth-first `go`), compiled.
 *
 * The same steps as the Python `go` in cover.py, over the same tables (the views'
 * colour and group tables, filled lazily by the Python functions `_cl_row` and
 * `_gl_fit`) and the same memo dicts, so the two give the same answers and leave the
 * same memo entries (a number's tables looked up, by the view, when first reached);
 * cover.py uses this one when it was built and the Python one
 * otherwise (RUMMY_PURE_PYTHON=1 forces it; the tests run both). Optional: an
 * install without a C compiler still works, at the Python speed.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

typedef struct {
    PyObject *cl;       /* the view's list: per number index (c0, c1, c2, c3, gtab) */
    PyObject *codes, *m, *caps, *order, *jt_obj;  /* the view's codes, naturals, order */
    long hi, jt, cap, need_x, from_k;
    long long left;     /* states still allowed (from -1: no limit) */
    PyObject *shared, *local, *worse, *row_of, *fit_of, *exc;
    PyObject *level, *code;        /* the view's level(k) and code(k), for a miss */
    PyObject *at, *codes_memo, *none4;  /* cover._AT, cover._CODES, cover._NONE4 */
} Ctx;

/* a small int of an option tuple */
#define IT(t, i) PyLong_AsLong(PyTuple_GET_ITEM((t), (i)))

/* dict[key] (borrowed), or NULL when missing (an error set if the lookup failed) */
static PyObject *
get_ll(PyObject *d, unsigned long long key)
{
    PyObject *k = PyLong_FromUnsignedLongLong(key);
    if (k == NULL)
        return NULL;
    PyObject *v = PyDict_GetItemWithError(d, k);
    Py_DECREF(k);
    return v;
}

static int
set_ll(PyObject *d, unsigned long long key, PyObject *v)
{
    PyObject *k = PyLong_FromUnsignedLongLong(key);
    if (k == NULL)
        return -1;
    int rc = PyDict_SetItem(d, k, v);
    Py_DECREF(k);
    return rc;
}

/* d.get(~key, 0): the codes that failed from state key, as bits; -1 on an error */
static long long
failed(PyObject *d, unsigned long long key)
{
    PyObject *k = PyLong_FromLongLong(-(long long)key - 1);
    if (k == NULL)
        return -1;
    PyObject *v = PyDict_GetItemWithError(d, k);
    Py_DECREF(k);
    if (v == NULL)
        return PyErr_Occurred() ? -1 : 0;
    return PyLong_AsLongLong(v);
}

static int
set_failed(PyObject *d, unsigned long long key, long long bits)
{
    PyObject *k = PyLong_FromLongLong(-(long long)key - 1);
    PyObject *v = PyLong_FromLongLong(bits);
    int rc = k == NULL || v == NULL ? -1 : PyDict_SetItem(d, k, v);
    Py_XDECREF(k);
    Py_XDECREF(v);
    return rc;
}

/* ((choice, a, b, c, d), rest): a new reference */
static PyObject *
step(PyObject *choice, PyObject *a, PyObject *b, PyObject *c, PyObject *d, PyObject *rest)
{
    PyObject *st = PyTuple_Pack(5, choice, a, b, c, d);
    if (st == NULL)
        return NULL;
    PyObject *out = PyTuple_Pack(2, st, rest);
    Py_DECREF(st);
    return out;
}

/* list[i] after a miss there: memo[key] (stored in the list), else method(i), which
 * stores it; borrowed. Steals key. */
static PyObject *
fill(PyObject *list, long i, PyObject *memo, PyObject *key, PyObject *method)
{
    if (key == NULL)
        return NULL;
    PyObject *got = PyDict_GetItemWithError(memo, key);
    Py_DECREF(key);
    if (got != NULL) {
        Py_INCREF(got);
        return PyList_SetItem(list, i, got) ? NULL : got;
    }
    if (PyErr_Occurred())
        return NULL;
    PyObject *r = PyObject_CallFunction(method, "l", i);
    if (r == NULL)
        return NULL;
    Py_DECREF(r);
    return PyList_GET_ITEM(list, i);
}

/* view.code(j): the codes list, else cover._CODES, else the Python method (borrowed) */
static PyObject *
code_at(Ctx *cx, long j)
{
    PyObject *c = PyList_GET_ITEM(cx->codes, j);
    if (c != Py_None)
        return c;
    PyObject *key = PyTuple_Pack(4, PyList_GET_ITEM(cx->m, j), PyList_GET_ITEM(cx->caps, j),
                                 cx->jt_obj, j == cx->hi ? Py_True : Py_False);
    return fill(cx->codes, j, cx->codes_memo, key, cx->code);
}

/* view.level(k): cover._AT's tables for the number as read, else the Python method;
 * stored in cl (borrowed) */
static PyObject *
level_at(Ctx *cx, long k)
{
    PyObject *a = Py_None, *b = Py_None;
    if (k < cx->hi) {
        if ((a = code_at(cx, k + 1)) == NULL)
            return NULL;
        b = cx->none4;
        if (k + 2 <= cx->hi && (b = code_at(cx, k + 2)) == NULL)
            return NULL;
    }
    PyObject *key = PyTuple_Pack(5, PyList_GET_ITEM(cx->caps, k), PyList_GET_ITEM(cx->m, k), a,
                                 b, cx->order);
    return fill(cx->cl, k, cx->at, key, cx->level);
}

static PyObject *go(Ctx *cx, long k, long s0, long s1, long s2, long s3, long n, long x);

/* one colour's row: rows.get(s * 4 + gl) or row_of(cl, s, gl) (a new reference) */
static PyObject *
row(Ctx *cx, PyObject *col, long s, long gl)
{
    PyObject *rows = PyList_GET_ITEM(col, 0);
    PyObject *r = get_ll(rows, (unsigned long long)(s * 4 + gl));
    if (r != NULL) {
        Py_INCREF(r);
        return r;
    }
    if (PyErr_Occurred())
        return NULL;
    return PyObject_CallFunction(cx->row_of, "Oll", col, s, gl);
}

static PyObject *
go(Ctx *cx, long k, long s0, long s1, long s2, long s3, long n, long x)
{
    if (--cx->left == 0) {
        PyErr_SetNone(cx->exc);
        return NULL;
    }
    long gl = cx->jt - n;
    PyObject *lev = PyList_GET_ITEM(cx->cl, k);
    if (lev == Py_None && (lev = level_at(cx, k)) == NULL) /* looked up the first time */
        return NULL;
    PyObject *r[4] = {NULL, NULL, NULL, NULL};
    PyObject *groups = NULL, *result = NULL;
    long sid[4] = {s0, s1, s2, s3};
    unsigned long long mk[4];
    for (int i = 0; i < 4; i++) {
        r[i] = row(cx, PyTuple_GET_ITEM(lev, i), sid[i], gl);
        if (r[i] == NULL)
            goto error;
        mk[i] = PyLong_AsUnsignedLongLong(PyTuple_GET_ITEM(r[i], 0));
    }
    PyObject *gtab = PyTuple_GET_ITEM(lev, 4);
    unsigned long long gkey =
        ((((mk[0] << 14 | mk[1]) << 14 | mk[2]) << 14 | mk[3]) << 2) | (unsigned long long)gl;
    groups = get_ll(PyList_GET_ITEM(gtab, 0), gkey);
    if (groups != NULL) {
        Py_INCREF(groups);
    }
    else {
        if (PyErr_Occurred())
            goto error;
        PyObject *key = PyLong_FromUnsignedLongLong(gkey);
        if (key == NULL)
            goto error;
        groups = PyObject_CallFunction(cx->fit_of, "OOKKKKl", gtab, key, mk[0], mk[1], mk[2],
                                       mk[3], gl);
        Py_DECREF(key);
        if (groups == NULL)
            goto error;
    }
    PyObject *l0 = PyTuple_GET_ITEM(r[0], 1), *l1 = PyTuple_GET_ITEM(r[1], 1);
    PyObject *l2 = PyTuple_GET_ITEM(r[2], 1), *l3 = PyTuple_GET_ITEM(r[3], 1);
    int fin = k == cx->hi;
    long k1 = k + 1;
    PyObject *mm = k1 > cx->from_k ? cx->shared : cx->local;
    Py_ssize_t ng = PyTuple_GET_SIZE(groups);
    for (Py_ssize_t gi = 0; gi < ng; gi++) {
        PyObject *choice = PyTuple_GET_ITEM(groups, gi);
        PyObject *gs = PyTuple_GET_ITEM(choice, 0);
        long cn = IT(choice, 1), cxp = IT(choice, 2);
        long rest = gl - cn;
        PyObject *la = PyTuple_GET_ITEM(l0, IT(gs, 0));
        PyObject *lb = PyTuple_GET_ITEM(l1, IT(gs, 1));
        PyObject *lc = PyTuple_GET_ITEM(l2, IT(gs, 2));
        PyObject *ld = PyTuple_GET_ITEM(l3, IT(gs, 3));
        Py_ssize_t nb = PyTuple_GET_SIZE(lb), nc = PyTuple_GET_SIZE(lc);
        Py_ssize_t nd = PyTuple_GET_SIZE(ld), na = PyTuple_GET_SIZE(la);
        if (!(nb && nc && nd))
            continue;
        for (Py_ssize_t ai = 0; ai < na; ai++) {
            PyObject *a = PyTuple_GET_ITEM(la, ai);
            long ea = IT(a, 2);
            if (ea > rest)
                continue;
            long na_ = cn + IT(a, 3), xa = cxp + IT(a, 4);
            unsigned long long ka = ((unsigned long long)k1 << 12 | IT(a, 0)) << 12;
            for (Py_ssize_t bi = 0; bi < nb; bi++) {
                PyObject *b = PyTuple_GET_ITEM(lb, bi);
                long eab = ea + IT(b, 2);
                if (eab > rest)
                    continue;
                long nb_ = na_ + IT(b, 3), xb = xa + IT(b, 4);
                unsigned long long kb = (ka | IT(b, 0)) << 12;
                for (Py_ssize_t ci = 0; ci < nc; ci++) {
                    PyObject *c = PyTuple_GET_ITEM(lc, ci);
                    long eabc = eab + IT(c, 2);
                    if (eabc > rest)
                        continue;
                    long nc_ = nb_ + IT(c, 3), xc = xb + IT(c, 4);
                    unsigned long long kc = (kb | IT(c, 0)) << 12;
                    for (Py_ssize_t di = 0; di < nd; di++) {
                        PyObject *d = PyTuple_GET_ITEM(ld, di);
                        if (eabc + IT(d, 2) > rest)
                            continue;
                        long dn = nc_ + IT(d, 3);
                        long x2 = x + dn + xc + IT(d, 4);
                        if (x2 > cx->cap)
                            x2 = cx->cap;
                        if (fin) {
                            if (x2 >= cx->need_x) {
                                result = step(choice, a, b, c, d, Py_None);
                                goto done;
                            }
                            continue;
                        }
                        long n2 = n + dn;
                        unsigned long long key = (kc | IT(d, 0)) << 4;
                        long code = n2 * 4 + x2;
                        PyObject *got = get_ll(mm, key | (unsigned long long)code);
                        PyObject *sub;
                        if (got == NULL) {
                            if (PyErr_Occurred())
                                goto error;
                            /* the codes that failed from this state, as bits at ~key */
                            long long fails = failed(mm, key);
                            if (fails < 0)
                                goto error;
                            if (fails >> code & 1)
                                continue;
                            sub = go(cx, k1, IT(a, 0), IT(b, 0), IT(c, 0), IT(d, 0), n2, x2);
                            if (sub == NULL)
                                goto error;
                            if (sub == Py_None) { /* (go wrote no key of this number) */
                                PyObject *more = PyList_GET_ITEM(cx->worse, code);
                                if (set_failed(mm, key, fails | PyLong_AsLongLong(more))) {
                                    Py_DECREF(sub);
                                    goto error;
                                }
                            }
                            else if (set_ll(mm, key | (unsigned long long)code, sub)) {
                                Py_DECREF(sub);
                                goto error;
                            }
                        }
                        else {
                            sub = got;
                            Py_INCREF(sub);
                        }
                        if (sub != Py_None) {
                            result = step(choice, a, b, c, d, sub);
                            Py_DECREF(sub);
                            goto done;
                        }
                        Py_DECREF(sub);
                    }
                }
            }
        }
    }
    result = Py_None;
    Py_INCREF(result);
done:
    Py_DECREF(groups);
    for (int i = 0; i < 4; i++)
        Py_DECREF(r[i]);
    return result;
error:
    Py_XDECREF(groups);
    for (int i = 0; i < 4; i++)
        Py_XDECREF(r[i]);
    return NULL;
}

static PyObject *
search(PyObject *self, PyObject *args)
{
    (void)self;
    Ctx cx;
    PyObject *view;
    long k, s0, s1, s2, s3, n, x;
    if (!PyArg_ParseTuple(args, "OlllLO!O!O!OOOO!O!O(lllllll)", &view, &cx.cap, &cx.need_x,
                          &cx.from_k, &cx.left, &PyDict_Type, &cx.shared, &PyDict_Type,
                          &cx.local, &PyList_Type, &cx.worse, &cx.row_of, &cx.fit_of, &cx.exc,
                          &PyDict_Type, &cx.at, &PyDict_Type, &cx.codes_memo, &cx.none4, &k, &s0,
                          &s1, &s2, &s3, &n, &x))
        return NULL;
    /* the view's fields (its __slots__), held for the call */
    static const char *names[] = {"cl", "codes", "m", "caps", "order", "jt", "hi", "level", "code"};
    PyObject *f[9] = {NULL};
    PyObject *result = NULL;
    for (int i = 0; i < 9; i++)
        if ((f[i] = PyObject_GetAttrString(view, names[i])) == NULL)
            goto done;
    for (int i = 0; i < 4; i++)
        if (!PyList_Check(f[i])) {
            PyErr_Format(PyExc_TypeError, "view.%s is not a list", names[i]);
            goto done;
        }
    cx.cl = f[0], cx.codes = f[1], cx.m = f[2], cx.caps = f[3], cx.order = f[4];
    cx.jt_obj = f[5], cx.level = f[7], cx.code = f[8];
    cx.jt = PyLong_AsLong(f[5]);
    cx.hi = PyLong_AsLong(f[6]);
    if (PyErr_Occurred())
        goto done;
    result = go(&cx, k, s0, s1, s2, s3, n, x);
done:
    for (int i = 0; i < 9; i++)
        Py_XDECREF(f[i]);
    return result;
}

static PyMethodDef methods[] = {
    {"search", search, METH_VARARGS,
     "search(view, cap, need_x, from_k, budget, shared, local, worse, row_of, fit_of, exc, "
     "at, codes, none4, (k, s0, s1, s2, s3, n, x)): cover._search's depth-first go from "
     "that state."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_cover_c",
                                    "The compiled inner search of rummy_env.cover.", -1,
                                    methods};

PyMODINIT_FUNC
PyInit__cover_c(void)
{
    PyObject *m = PyModule_Create(&module);
    /* the call's form; cover.py ignores a build whose API is not its own (a stale .so) */
    if (m != NULL && PyModule_AddIntConstant(m, "API", 3)) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
