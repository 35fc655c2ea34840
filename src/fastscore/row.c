/* The aggregation row of one scored observation: what contract.row_of makes of its record, read
   from the observation and the numbers of its scorecard line instead of from the line's text.

   The columns are contract.ROW_COLUMNS; fastpath.row_plan says where each one's value comes from
   (ROW_* in fastscore.h) and fails for a column it does not know, so the table stays the one
   definition of a row. A value the row's checks (contract/_record.py) would refuse or convert
   otherwise than here makes the line go to the Python path. */

#include "fastscore.h"

#include <math.h>

/* A score as the row holds it: the double the scorecard line spells, read back (JSON has no
   -0: the line writes 0). */
static PyObject *
score_value(double score)
{
    if (!isfinite(score)) {
        return NULL;
    }
    return PyFloat_FromDouble(score == 0.0 ? 0.0 : score);
}

/* A non-empty str, or NULL. */
static PyObject *
id_value(PyObject *value)
{
    return is_nonempty_text(value) ? Py_NewRef(value) : NULL;
}

/* A model or tier: None, or a non-empty str. */
static PyObject *
label_value(PyObject *labels, PyObject *candidate, Py_ssize_t index)
{
    PyObject *pair = PyDict_GetItemWithError(labels, candidate);
    if (pair == NULL) {
        return PyErr_Occurred() ? NULL : Py_NewRef(Py_None);
    }
    if (!PyTuple_CheckExact(pair) || PyTuple_GET_SIZE(pair) != 2) {
        return NULL;
    }
    PyObject *value = PyTuple_GET_ITEM(pair, index);
    return value == Py_None ? Py_NewRef(Py_None) : id_value(value);
}

/* A non-negative finite number as a float (absent: NaN), as the row's "measure" check does. */
static PyObject *
measure_value(PyObject *metrics, PyObject *name, PyObject *nan)
{
    PyObject *value = field(metrics, name);
    if (value == NULL) {
        return PyErr_Occurred() ? NULL : Py_NewRef(nan);
    }
    if (PyFloat_CheckExact(value)) {
        double number = PyFloat_AS_DOUBLE(value);
        return number >= 0 && isfinite(number) ? Py_NewRef(value) : NULL;
    }
    if (PyLong_CheckExact(value)) {
        int overflow = 0;
        long long number = PyLong_AsLongLongAndOverflow(value, &overflow);
        if (overflow || number < 0 || number > (1LL << 53)) {
            return NULL; /* the Python path converts or refuses it */
        }
        return PyFloat_FromDouble((double)number);
    }
    return NULL;
}

/* A non-negative int (not a bool), as the row's "count" check does. */
static PyObject *
count_value(PyObject *metrics, PyObject *name)
{
    PyObject *value = field(metrics, name);
    if (value == NULL || !PyLong_CheckExact(value)) {
        return NULL;
    }
    int overflow = 0;
    long long number = PyLong_AsLongLongAndOverflow(value, &overflow);
    if (number == -1 && PyErr_Occurred()) {
        return NULL;
    }
    return overflow || number < 0 ? NULL : Py_NewRef(value);
}

static PyObject *
flag_value(int unscoreable, int flag)
{
    return Py_NewRef(unscoreable ? Py_None : flag ? Py_True : Py_False);
}

/* One column's value, a new reference; NULL without an error: not a value the row holds. */
static PyObject *
column_value(PyObject *entry, PyObject *observation, const Card *card, PyObject *rows)
{
    if (!PyTuple_CheckExact(entry) || PyTuple_GET_SIZE(entry) != 2) {
        PyErr_SetString(PyExc_TypeError, "a row plan entry is (source, argument)");
        return NULL;
    }
    long source = PyLong_AsLong(PyTuple_GET_ITEM(entry, 0));
    PyObject *argument = PyTuple_GET_ITEM(entry, 1);
    PyObject *nan = PyTuple_GET_ITEM(rows, 3);
    Py_ssize_t index = PyLong_Check(argument) ? PyLong_AsSsize_t(argument) : 0;
    if (PyErr_Occurred()) {
        return NULL;
    }
    if ((source == ROW_SCORE || source == ROW_PASSED) && (index < 0 || index >= DIMENSION_COUNT)) {
        PyErr_SetString(PyExc_ValueError, "a row plan names a dimension that is not there");
        return NULL;
    }
    switch (source) {
    case ROW_BUNDLE:
        return id_value(PyTuple_GET_ITEM(rows, 1));
    case ROW_CANDIDATE:
        return id_value(field(observation, s_candidateId));
    case ROW_PROVIDER:
        return id_value(field(observation, s_provider));
    case ROW_MODEL:
    case ROW_TIER: {
        PyObject *candidate = field(observation, s_candidateId);
        return candidate == NULL ? NULL
                                 : label_value(PyTuple_GET_ITEM(rows, 2), candidate,
                                               source == ROW_MODEL ? 0 : 1);
    }
    case ROW_CASE:
        return id_value(field(observation, s_caseId));
    case ROW_REPETITION:
        return Py_NewRef(PyTuple_GET_ITEM(rows, 4));
    case ROW_CLASSIFICATION:
        return id_value(field(observation, s_classification));
    case ROW_SCORE:
        return card->unscoreable ? Py_NewRef(nan) : score_value(card->scores[index]);
    case ROW_PASSED:
        return flag_value(card->unscoreable, card->dimension_passed[index]);
    case ROW_OVERALL:
        return card->unscoreable ? Py_NewRef(nan) : score_value(card->overall);
    case ROW_GATE: /* the effective gate: with the audit gating, no failed finding either */
        return flag_value(card->unscoreable,
                          card->gate_passed &&
                              !(PyTuple_GET_ITEM(rows, 5) == Py_True && card->audit > 0));
    case ROW_ALL_PASSED:
        return flag_value(card->unscoreable, card->passed);
    case ROW_MEASURE:
    case ROW_COUNT: {
        PyObject *metrics = field(observation, s_metrics);
        if (metrics == NULL || !PyUnicode_CheckExact(argument)) {
            return NULL;
        }
        return source == ROW_MEASURE ? measure_value(metrics, argument, nan)
                                     : count_value(metrics, argument);
    }
    default:
        PyErr_SetString(PyExc_ValueError, "a row plan names a source the C code does not know");
        return NULL;
    }
}

PyObject *
build_row(PyObject *observation, const Card *card, PyObject *rows)
{
    PyObject *plan = PyTuple_GET_ITEM(rows, 0);
    Py_ssize_t size = PyTuple_GET_SIZE(plan);
    PyObject *row = PyTuple_New(size);
    if (row == NULL) {
        return NULL;
    }
    for (Py_ssize_t index = 0; index < size; index++) {
        PyObject *value = column_value(PyTuple_GET_ITEM(plan, index), observation, card, rows);
        if (value == NULL) {
            Py_DECREF(row);
            return NULL;
        }
        PyTuple_SET_ITEM(row, index, value);
    }
    return row;
}
