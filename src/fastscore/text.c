/* The output buffer's helpers: quoting through the Python helpers' cached answers, and numbers
   spelt as JavaScript spells them. */

#include "fastscore.h"

/* Append helper(argument), a str the helper returns. */
int
append_call(Buffer *buffer, PyObject *helper, PyObject *argument)
{
    PyObject *text = PyObject_CallOneArg(helper, argument);
    if (text == NULL) {
        return -1;
    }
    int status = PyUnicode_Check(text) ? append_str(buffer, text) : -1;
    if (status < 0 && !PyErr_Occurred()) {
        PyErr_SetString(PyExc_TypeError, "helper must return str");
    }
    Py_DECREF(text);
    return status;
}

/* append_call through a cache of the helper's answers (ids and reasons repeat from record to
   record); only short texts are kept, and the cache starts over when full: bounded memory. */
int
append_cached(Buffer *buffer, PyObject *cache, PyObject *helper, PyObject *argument)
{
    PyObject *text = PyDict_GetItemWithError(cache, argument);
    if (text != NULL) {
        return append_str(buffer, text);
    }
    if (PyErr_Occurred()) {
        return -1;
    }
    text = PyObject_CallOneArg(helper, argument);
    if (text == NULL) {
        return -1;
    }
    if (!PyUnicode_Check(text)) {
        Py_DECREF(text);
        PyErr_SetString(PyExc_TypeError, "helper must return str");
        return -1;
    }
    if (PyUnicode_GET_LENGTH(argument) > CACHED_LENGTH) {
        int status = append_str(buffer, text);
        Py_DECREF(text);
        return status;
    }
    if (PyDict_GET_SIZE(cache) >= CACHE_LIMIT) {
        PyDict_Clear(cache);
    }
    int status = PyDict_SetItem(cache, argument, text) < 0 ? -1 : append_str(buffer, text);
    Py_DECREF(text);
    return status;
}

/* Spelt doubles, by their bits: scores are ratios of small counts, so a few dozen repeat. */
#define SPELT_SLOTS 256
#define SPELLING_SIZE 32
static struct {
    double value;
    int used;
    char text[SPELLING_SIZE];
} spelt[SPELT_SLOTS];

static size_t
spelt_slot(double value)
{
    unsigned long long bits;
    memcpy(&bits, &value, sizeof bits);
    bits ^= bits >> 29;
    bits *= 0x9E3779B97F4A7C15ULL;
    return (size_t)(bits >> 56) % SPELT_SLOTS;
}

/* Writes `value` into `text` as JavaScript's String() spells it and returns the length, when that
   is CPython's shortest repr: they agree on the digits, and on where the point goes whenever repr
   uses no exponent. 0 when only jsformat can say; -1 on error. */
static Py_ssize_t
spell_double(double value, char text[SPELLING_SIZE])
{
    if (value == 0.0) {
        memcpy(text, "0", 2); /* -0 too */
        return 1;
    }
    char *repr = PyOS_double_to_string(value, 'r', 0, 0, NULL);
    if (repr == NULL) {
        return -1;
    }
    size_t length = strlen(repr);
    Py_ssize_t spelt_length = 0;
    if (length < SPELLING_SIZE && strpbrk(repr, "en") == NULL) { /* no exponent, inf or nan */
        memcpy(text, repr, length + 1);
        spelt_length = (Py_ssize_t)length;
    }
    PyMem_Free(repr);
    return spelt_length;
}

/* `value` spelt into `text` (its length), or, where only jsformat can spell it, appended to
   `buffer` through it (0); -1 on error. */
static Py_ssize_t
spelt_here(Buffer *buffer, double value, char text[SPELLING_SIZE])
{
    Py_ssize_t length = spell_double(value, text);
    if (length != 0) {
        return length;
    }
    PyObject *number = PyFloat_FromDouble(value);
    int status = number == NULL ? -1 : append_call(buffer, number_text, number);
    Py_XDECREF(number);
    return status < 0 ? -1 : 0;
}

int
append_double(Buffer *buffer, double value)
{
    size_t slot = spelt_slot(value);
    if (spelt[slot].used && memcmp(&spelt[slot].value, &value, sizeof value) == 0) {
        return append(buffer, spelt[slot].text, (Py_ssize_t)strlen(spelt[slot].text));
    }
    char text[SPELLING_SIZE];
    Py_ssize_t length = spelt_here(buffer, value, text);
    if (length <= 0) {
        return (int)length;
    }
    spelt[slot].value = value;
    spelt[slot].used = 1;
    memcpy(spelt[slot].text, text, (size_t)length + 1);
    return append(buffer, text, length);
}

int
append_measure(Buffer *buffer, double value)
{
    char text[SPELLING_SIZE];
    Py_ssize_t length = spelt_here(buffer, value, text);
    if (length <= 0) {
        return (int)length;
    }
    return append(buffer, text, length);
}

/* A JSON number of an observation as jsformat.format_js_number spells it (a new reference):
   here for integers JavaScript holds exactly and doubles repr spells without an exponent,
   otherwise by calling it. */
PyObject *
number_spelling(PyObject *number)
{
    const long long exact = 1LL << 53;
    if (PyLong_CheckExact(number)) {
        int overflow;
        long long value = PyLong_AsLongLongAndOverflow(number, &overflow);
        if (value == -1 && PyErr_Occurred()) {
            return NULL;
        }
        if (!overflow && -exact <= value && value <= exact) {
            return PyUnicode_FromFormat("%lld", value);
        }
    }
    else if (PyFloat_CheckExact(number)) {
        char text[SPELLING_SIZE];
        Py_ssize_t length = spell_double(PyFloat_AS_DOUBLE(number), text);
        if (length < 0) {
            return NULL;
        }
        if (length > 0) {
            return PyUnicode_FromStringAndSize(text, length);
        }
    }
    return PyObject_CallOneArg(number_text, number);
}

