/* _fastboard: the hot path of Board.play and Board.legal_actions in C.
 *
 * A fast path of the rules in kernels.py, not a second set of rules: the same bitboards (square
 * i is bit i = row * size + col, sizes 8, 6 and 4 in the low size * size bits), the same
 * flood-fill of opponent runs along the 8 directions, the same contracts as the kernels
 * legal_mask and flip_mask, and play_board gives the Board that kernels.play_with_moves
 * describes; tests/core/test_fastboard.py checks all of it against the Numba kernels. What it
 * saves is Numba's dispatch (about 150 ns a call, more than the rule itself) and, with Board's
 * methods in C, the Python calls around it.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <structmember.h>

typedef uint64_t u64;

static u64 INNER[9], FULL[9]; /* per size: squares off the edge columns; the whole board */

/* The runs of opponent discs (o, masked) that start next to one of seed's squares, going up
 * (<< s) into *up and down (>> s) into *down: two single steps, then two double steps cover
 * the 6 discs a line can hold. */
static inline void
flood(u64 seed, u64 om, int s, u64 *up, u64 *down)
{
    u64 run, pairs;
    run = (seed << s) & om;
    run |= (run << s) & om;
    pairs = om & (om << s);
    run |= (run << (2 * s)) & pairs;
    run |= (run << (2 * s)) & pairs;
    *up = run;
    run = (seed >> s) & om;
    run |= (run >> s) & om;
    pairs = om & (om >> s);
    run |= (run >> (2 * s)) & pairs;
    run |= (run >> (2 * s)) & pairs;
    *down = run;
}

/* The lanes: E/W (shift 1), S/N (n), SE/NW (n + 1), SW/NE (n - 1). All but the vertical one
 * see only the opponent's discs off the edge columns, so a run never wraps into another row. */
static inline u64
legal_n(u64 p, u64 o, int n)
{
    const int shifts[4] = {1, n, n + 1, n - 1};
    const u64 inner = o & INNER[n];
    u64 ends = 0, up, down;
    for (int d = 0; d < 4; d++) {
        int s = shifts[d];
        flood(p, d == 1 ? o : inner, s, &up, &down);
        ends |= (up << s) | (down >> s);
    }
    return ends & ~(p | o) & FULL[n];
}

static inline u64
flips_n(u64 p, u64 o, int sq, int n)
{
    const int shifts[4] = {1, n, n + 1, n - 1};
    const u64 inner = o & INNER[n], x = (u64)1 << sq;
    u64 flips = 0, up, down;
    for (int d = 0; d < 4; d++) {
        int s = shifts[d];
        flood(x, d == 1 ? o : inner, s, &up, &down);
        if ((up << s) & p)
            flips |= up;
        if ((down >> s) & p)
            flips |= down;
    }
    return flips;
}

/* One switch per call so that each size gets code with its shifts as constants. */
static u64
legal(u64 p, u64 o, int n)
{
    switch (n) {
    case 8: return legal_n(p, o, 8);
    case 6: return legal_n(p, o, 6);
    default: return legal_n(p, o, 4);
    }
}

static u64
flips(u64 p, u64 o, int sq, int n)
{
    switch (n) {
    case 8: return flips_n(p, o, sq, 8);
    case 6: return flips_n(p, o, sq, 6);
    default: return flips_n(p, o, sq, 4);
    }
}

/* ------------------------------------------------------------------------------------------ */
/* Argument parsing: bitboards on a size x size board, a size of 8, 6 or 4, a square on it. */

static int
get_size(PyObject *arg, int *n)
{
    long v = PyLong_AsLong(arg);
    if (v == -1 && PyErr_Occurred())
        return -1;
    if (v != 8 && v != 6 && v != 4) {
        PyErr_SetString(PyExc_ValueError, "unsupported board size: expected 8, 6 or 4");
        return -1;
    }
    *n = (int)v;
    return 0;
}

static int
get_board(PyObject *arg, int n, u64 *out)
{
    PyObject *index = PyNumber_Index(arg); /* numpy integers too, as the kernels take them */
    if (index == NULL)
        return -1;
    u64 v = PyLong_AsUnsignedLongLong(index);
    Py_DECREF(index);
    if (v == (u64)-1 && PyErr_Occurred())
        return -1;
    if (v & ~FULL[n]) {
        char hex[24];
        snprintf(hex, sizeof hex, "%#llx", (unsigned long long)v);
        PyErr_Format(PyExc_ValueError, "bitboard %s has bits off a %dx%d board", hex, n, n);
        return -1;
    }
    *out = v;
    return 0;
}

static int
get_square(PyObject *arg, int n, int *sq)
{
    long v = PyLong_AsLong(arg);
    if (v == -1 && PyErr_Occurred())
        return -1;
    if (v < 0 || v >= n * n) {
        PyErr_Format(PyExc_ValueError, "square %ld is off a %dx%d board", v, n, n);
        return -1;
    }
    *sq = (int)v;
    return 0;
}

static int
parse(PyObject *const *args, Py_ssize_t nargs, Py_ssize_t want, const char *name, u64 *p,
      u64 *o, int *sq, int *n)
{
    if (nargs != want) {
        PyErr_Format(PyExc_TypeError, "%s() takes %zd arguments (%zd given)", name, want, nargs);
        return -1;
    }
    if (get_size(args[want - 1], n) || get_board(args[0], *n, p) || get_board(args[1], *n, o))
        return -1;
    if (*p & *o) {
        char hex[24];
        snprintf(hex, sizeof hex, "%#llx", (unsigned long long)(*p & *o));
        PyErr_Format(PyExc_ValueError, "%s(): squares %s hold both colours", name, hex);
        return -1;
    }
    return want == 4 ? get_square(args[2], *n, sq) : 0;
}

/* ------------------------------------------------------------------------------------------ */

static PyObject *
py_legal_mask(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    u64 p, o;
    int n;
    if (parse(args, nargs, 3, "legal_mask", &p, &o, NULL, &n))
        return NULL;
    return PyLong_FromUnsignedLongLong(legal(p, o, n));
}

static PyObject *
py_flip_mask(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    u64 p, o;
    int sq, n;
    if (parse(args, nargs, 4, "flip_mask", &p, &o, &sq, &n))
        return NULL;
    return PyLong_FromUnsignedLongLong(flips(p, o, sq, n));
}

static PyObject *
py_mask_squares(PyObject *self, PyObject *arg)
{
    u64 m = PyLong_AsUnsignedLongLong(arg);
    if (m == (u64)-1 && PyErr_Occurred())
        return NULL;
    /* GCC's and Clang's builtins: where they are missing the build fails and Board uses the
     * Numba kernels */
    PyObject *out = PyList_New(__builtin_popcountll(m));
    if (out == NULL)
        return NULL;
    for (Py_ssize_t i = 0; m; i++, m &= m - 1) {
        PyObject *sq = PyLong_FromLong(__builtin_ctzll(m)); /* a cached small int */
        if (sq == NULL) {
            Py_DECREF(out);
            return NULL;
        }
        PyList_SET_ITEM(out, i, sq);
    }
    return out;
}

/* ------------------------------------------------------------------------------------------ */
/* Board.play's fast path: the next Board made here. Board has __slots__; bind() finds where
 * each slot lives from its member descriptor (what CPython's own slot access reads), so this
 * code reads and writes them as a C type reads its fields. */

enum { P, O, TURN, SIZE, LEGAL, NSLOTS };
static const char *SLOT_NAMES[NSLOTS] = {"_p", "_o", "_turn", "_size", "_legal"};
static PyTypeObject *board_type;
static Py_ssize_t offsets[NSLOTS];
#define SLOT(b, i) (*(PyObject **)((char *)(b) + offsets[i]))

static PyObject *
play_fast(PyObject *board, PyObject *move)
{
    /* None for anything but a legal square index on an exact Board: Board.play's Python path
     * handles those (names, passes, errors, subclasses) */
    if (board_type == NULL || !Py_IS_TYPE(board, board_type) || !PyLong_CheckExact(move))
        Py_RETURN_NONE;
    PyObject *p_obj = SLOT(board, P), *o_obj = SLOT(board, O), *size_obj = SLOT(board, SIZE),
             *turn_obj = SLOT(board, TURN);
    if (!p_obj || !o_obj || !size_obj || !turn_obj || !PyLong_CheckExact(p_obj) ||
        !PyLong_CheckExact(o_obj) || !PyLong_CheckExact(size_obj) || !PyLong_CheckExact(turn_obj))
        Py_RETURN_NONE;
    /* a Board's discs are in range by construction (from_bitboards checks them) */
    u64 p = PyLong_AsUnsignedLongLongMask(p_obj), o = PyLong_AsUnsignedLongLongMask(o_obj);
    long n = PyLong_AsLong(size_obj), turn = PyLong_AsLong(turn_obj), sq = PyLong_AsLong(move);
    if (PyErr_Occurred())
        PyErr_Clear();
    if ((n != 8 && n != 6 && n != 4) || (turn != 0 && turn != 1) || sq < 0 || sq >= n * n)
        Py_RETURN_NONE;
    u64 bit = (u64)1 << sq, f = (p | o) & bit ? 0 : flips(p, o, (int)sq, (int)n);
    if (!f)
        Py_RETURN_NONE;
    u64 p2 = o & ~f, o2 = p | f | bit;
    PyObject *b = board_type->tp_alloc(board_type, 0);
    if (b == NULL)
        return NULL;
    SLOT(b, SIZE) = Py_NewRef(size_obj);
    SLOT(b, TURN) = PyLong_FromLong(1 - turn);
    if (!(SLOT(b, P) = PyLong_FromUnsignedLongLong(p2)) ||
        !(SLOT(b, O) = PyLong_FromUnsignedLongLong(o2)) ||
        !(SLOT(b, LEGAL) = PyLong_FromUnsignedLongLong(legal(p2, o2, (int)n)))) {
        Py_DECREF(b);
        return NULL;
    }
    return b;
}

static PyObject *
py_play_board(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "play_board() takes a Board and a move");
        return NULL;
    }
    return play_fast(args[0], args[1]);
}

/* Board.play and Board.legal_actions as C methods: one C call a ply where a Python method
 * calling C took two. What the fast path does not take goes to Board's Python method. */

static PyObject *python_play, *python_legal_actions; /* Board's own methods, from bind() */

static PyObject *
board_play(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    if (nargs == 1 && kwnames == NULL) {
        PyObject *b = play_fast(self, args[0]);
        if (b != Py_None)
            return b;
        Py_DECREF(b);
    }
    PyObject *method = PyMethod_New(python_play, self), *r = NULL;
    if (method != NULL) {
        r = PyObject_Vectorcall(method, args, nargs, kwnames);
        Py_DECREF(method);
    }
    return r;
}

static PyObject *
board_legal_actions(PyObject *self, PyObject *unused)
{
    PyObject *m = Py_IS_TYPE(self, board_type) ? SLOT(self, LEGAL) : NULL;
    if (m != NULL && PyLong_CheckExact(m)) {
        int overflow;
        long long v = PyLong_AsLongLongAndOverflow(m, &overflow);
        if (v > 0 || overflow > 0) /* a known, non-empty mask (-1: not computed yet) */
            return py_mask_squares(NULL, m);
    }
    return PyObject_CallOneArg(python_legal_actions, self);
}

static PyMethodDef board_methods[] = {
    {"play", (PyCFunction)(void (*)(void))board_play, METH_FASTCALL | METH_KEYWORDS, NULL},
    {"legal_actions", board_legal_actions, METH_NOARGS, NULL},
};
static const char *SIGNATURES[] = {"play($self, /, move)", "legal_actions($self, /)"};
static PyObject *docs[2]; /* keep the methods' docstrings alive */

/* Replaces the Python method cls.<name> (kept in *python) by board_methods[i], whose
 * docstring is the Python method's, after its signature. */
static int
install(PyTypeObject *cls, int i, PyObject **python)
{
    const char *name = board_methods[i].ml_name;
    PyObject *f = PyObject_GetAttrString((PyObject *)cls, name), *doc = NULL, *descr;
    if (f == NULL)
        return -1;
    if (!PyFunction_Check(f)) {
        PyErr_Format(PyExc_TypeError, "%R.%s is not a Python function", cls, name);
        Py_DECREF(f);
        return -1;
    }
    PyObject *text = PyObject_GetAttrString(f, "__doc__"); /* None under python -OO */
    if (text != NULL)
        doc = PyUnicode_Check(text)
                  ? PyUnicode_FromFormat("%s\n--\n\n%U", SIGNATURES[i], text)
                  : PyUnicode_FromFormat("%s\n--\n\n", SIGNATURES[i]);
    Py_XDECREF(text);
    if (doc == NULL || (board_methods[i].ml_doc = PyUnicode_AsUTF8(doc)) == NULL ||
        (descr = PyDescr_NewMethod(cls, &board_methods[i])) == NULL) {
        Py_XDECREF(doc);
        Py_DECREF(f);
        return -1;
    }
    int r = PyObject_SetAttrString((PyObject *)cls, name, descr);
    Py_DECREF(descr);
    Py_XSETREF(docs[i], doc);
    Py_XSETREF(*python, f);
    return r;
}

static PyObject *
py_bind(PyObject *self, PyObject *cls)
{
    if (!PyType_Check(cls)) {
        PyErr_SetString(PyExc_TypeError, "bind() takes the Board class");
        return NULL;
    }
    PyTypeObject *type = (PyTypeObject *)cls;
    /* A second Board class (board.py imported twice, as pytest's doctest collection may)
     * keeps its Python methods: the first one's C methods and their fallbacks stay as they are,
     * so they never hand a Board of one class to code expecting the other. */
    if (board_type != NULL)
        Py_RETURN_FALSE;
    for (int i = 0; i < NSLOTS; i++) {
        PyObject *d = PyObject_GetAttrString(cls, SLOT_NAMES[i]);
        if (d == NULL)
            return NULL;
        PyMemberDef *m = Py_IS_TYPE(d, &PyMemberDescr_Type)
                             ? ((PyMemberDescrObject *)d)->d_member : NULL;
        Py_DECREF(d);
        if (m == NULL || m->type != T_OBJECT_EX || m->offset < (Py_ssize_t)sizeof(PyObject) ||
            m->offset + (Py_ssize_t)sizeof(PyObject *) > type->tp_basicsize) {
            PyErr_Format(PyExc_TypeError, "%R.%s is not a __slots__ slot", cls, SLOT_NAMES[i]);
            return NULL;
        }
        offsets[i] = m->offset;
    }
    board_type = (PyTypeObject *)Py_NewRef(cls);
    if (install(type, 0, &python_play) || install(type, 1, &python_legal_actions))
        return NULL;
    Py_RETURN_TRUE;
}

static PyMethodDef methods[] = {
    {"legal_mask", (PyCFunction)(void (*)(void))py_legal_mask, METH_FASTCALL,
     "legal_mask(p, o, size): bitboard of the squares the side to move (discs p) may play."},
    {"flip_mask", (PyCFunction)(void (*)(void))py_flip_mask, METH_FASTCALL,
     "flip_mask(p, o, sq, size): the opponent discs a disc on empty square sq flips (0: "
     "illegal)."},
    {"mask_squares", py_mask_squares, METH_O,
     "mask_squares(mask): the set squares of a bitboard as a list, in increasing order."},
    {"bind", py_bind, METH_O,
     "bind(Board): find Board's slots (_p, _o, _turn, _size, _legal) for play_board, and make "
     "Board.play and Board.legal_actions C methods that take the fast path where they can and "
     "call the Python methods they replace otherwise. Only the first class bound gets them "
     "(returns True); a later one is left alone (returns False)."},
    {"play_board", (PyCFunction)(void (*)(void))py_play_board, METH_FASTCALL,
     "play_board(board, move): the Board after a legal move given as a square index, or None "
     "for anything else (a name, a pass, an illegal move, a subclass): Board.play's Python "
     "path handles those."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_fastboard",
    "The hot path of Board.play and Board.legal_actions in C (a fast path of kernels.py).",
    -1, methods,
};

PyMODINIT_FUNC
PyInit__fastboard(void)
{
    for (int n = 4; n <= 8; n += 2) {
        FULL[n] = n == 8 ? ~(u64)0 : ((u64)1 << (n * n)) - 1;
        for (int sq = 0; sq < n * n; sq++)
            if (sq % n != 0 && sq % n != n - 1)
                INNER[n] |= (u64)1 << sq;
    }
    PyObject *m = PyModule_Create(&module);
    if (m == NULL)
        return NULL;
#ifdef FASTBOARD_SOURCE_CRC
    /* the CRC-32 of this file at build time (setup.py): Board skips a build older than it */
    PyObject *crc = PyLong_FromUnsignedLongLong(FASTBOARD_SOURCE_CRC);
    if (crc == NULL || PyModule_AddObject(m, "SOURCE_CRC", crc)) {
        Py_XDECREF(crc);
        Py_DECREF(m);
        return NULL;
    }
#endif
    return m;
}
