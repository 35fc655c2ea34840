/* What the files of the _fastscore extension share (see module.c for what the extension is).

   module.c      the module, its state, blocks of JSON Lines, the contract rules
   line.c        the scorecard line of one observation
   dimensions.c  the dimensions (scoring.py) except trace completeness and lineage
   trace.c       trace completeness and trace lineage
   audit.c       the count of failed audit findings (audit.py)
   text.c        the output buffer's helpers: cached quoting, numbers spelt as JavaScript does
   strict.c      which lines the fast path may read: the general path's JSON checks on raw bytes
   row.c         the aggregation row of one scored observation (contract.ROW_COLUMNS)
   record.c      the scored record of one observation (`--format records`), its audit findings

   Helpers every line calls many times are static inline here. */

#ifndef SCORECARD_FASTSCORE_H
#define SCORECARD_FASTSCORE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>
#include <string.h>

#ifndef Py_T_OBJECT_EX /* the 3.12 spelling */
#define Py_T_OBJECT_EX T_OBJECT_EX
#endif

/* ------------------------------------------------------------------------------------------ */
/* Module state: helpers and constants set once by configure() (module.c).                   */

extern PyObject *UNSET;        /* msgspec.UNSET: an absent optional field */
extern PyObject *reason_json;  /* lines.reason_json: redact + quote */
extern PyObject *string_json;  /* lines.json_string: quote (cached) */
extern PyObject *number_text;  /* jsformat.format_js_number */
extern PyObject *comma_space;  /* ", " */
extern PyObject *reason_cache; /* reason -> its JSON text */
extern PyObject *string_cache; /* id -> its JSON text */

/* Field names of the structs: s_<key>, interned, for every wire key of the observation contract
   (NAMES, generated from the models into fields.h; docs/architecture.md). */
#include "fields.h"

#define DECLARE(name) extern PyObject *s_##name;
NAMES(DECLARE)
#undef DECLARE

/* Keys of the free-form payload dicts of wire events. */
extern PyObject *k_semantic_tool, *k_schema, *k_schemaVersion, *k_phase, *k_operationReceiptId,
    *k_operationId, *k_stopReason, *k_receiptId, *k_decisionId;

/* Where field() found fields: (type, name) -> slot offset, direct-mapped. An entry holds its
   type and name, so neither address can be reused by another object while it is cached. */
#define SLOT_CACHE_SIZE 256
typedef struct {
    PyTypeObject *type;
    PyObject *name;
    Py_ssize_t offset;
} SlotEntry;
extern SlotEntry slot_cache[SLOT_CACHE_SIZE];

/* A field of a struct, borrowed (the struct owns it and outlives the call); NULL if UNSET.
   msgspec keeps struct fields in slots: read the slot the type's member descriptor names
   (what PyObject_GetAttr ends up doing, without the generic lookup). */
static inline PyObject *
field(PyObject *owner, PyObject *name)
{
    PyTypeObject *type = Py_TYPE(owner);
    size_t index = (((uintptr_t)type >> 4) * 31 + ((uintptr_t)name >> 4)) % SLOT_CACHE_SIZE;
    PyObject *value;
    if (slot_cache[index].type != type || slot_cache[index].name != name) {
        PyObject *descriptor = _PyType_Lookup(type, name);
        if (descriptor == NULL || !Py_IS_TYPE(descriptor, &PyMemberDescr_Type) ||
            ((PyMemberDescrObject *)descriptor)->d_member->type != Py_T_OBJECT_EX) {
            value = PyObject_GetAttr(owner, name);
            if (value == NULL) {
                return NULL;
            }
            Py_DECREF(value);
            return value == UNSET ? NULL : value;
        }
        Py_INCREF(type);
        Py_INCREF(name);
        Py_XDECREF(slot_cache[index].type);
        Py_XDECREF(slot_cache[index].name);
        slot_cache[index].type = type;
        slot_cache[index].name = name;
        slot_cache[index].offset = ((PyMemberDescrObject *)descriptor)->d_member->offset;
    }
    value = *(PyObject **)((char *)owner + slot_cache[index].offset);
    if (value == NULL) {
        PyErr_SetObject(PyExc_AttributeError, name);
        return NULL;
    }
    return value == UNSET ? NULL : value;
}

/* A key of a payload dict, borrowed; NULL if absent. */
static inline PyObject *
item(PyObject *dict, PyObject *key)
{
    return PyDict_CheckExact(dict) ? PyDict_GetItemWithError(dict, key) : NULL;
}

static inline int
is_text(PyObject *value, const char *text)
{
    return value != NULL && PyUnicode_CheckExact(value) &&
           PyUnicode_CompareWithASCIIString(value, text) == 0;
}

static inline int
is_nonempty_text(PyObject *value)
{
    return value != NULL && PyUnicode_CheckExact(value) && PyUnicode_GET_LENGTH(value) > 0;
}

/* JavaScript `=== 1`: true is not 1 there. */
static inline int
is_one(PyObject *value)
{
    if (value == NULL || PyBool_Check(value)) {
        return 0;
    }
    if (PyLong_CheckExact(value)) {
        int overflow = 0;
        long long number = PyLong_AsLongLongAndOverflow(value, &overflow);
        return !overflow && number == 1;
    }
    return PyFloat_CheckExact(value) && PyFloat_AS_DOUBLE(value) == 1.0;
}

/* ------------------------------------------------------------------------------------------ */
/* A growing UTF-8 buffer.                                                                     */

typedef struct {
    char *data;
    Py_ssize_t size, capacity;
    char inline_data[4096];
} Buffer;

static inline void
buffer_init(Buffer *buffer)
{
    buffer->data = buffer->inline_data;
    buffer->size = 0;
    buffer->capacity = sizeof(buffer->inline_data);
}

static inline void
buffer_free(Buffer *buffer)
{
    if (buffer->data != buffer->inline_data) {
        PyMem_Free(buffer->data);
    }
}

/* Room for `capacity` bytes in all, made once (appending then copies nothing more). */
static inline int
reserve(Buffer *buffer, Py_ssize_t capacity)
{
    if (capacity <= buffer->capacity) {
        return 0;
    }
    char *grown = PyMem_Malloc(capacity);
    if (grown == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    memcpy(grown, buffer->data, buffer->size);
    buffer_free(buffer);
    buffer->data = grown;
    buffer->capacity = capacity;
    return 0;
}

static inline int
append(Buffer *buffer, const char *text, Py_ssize_t length)
{
    if (buffer->size + length > buffer->capacity && reserve(buffer, 2 * (buffer->size + length)) < 0) {
        return -1;
    }
    memcpy(buffer->data + buffer->size, text, length);
    buffer->size += length;
    return 0;
}

#define APPEND_LITERAL(buffer, text) append((buffer), (text), (Py_ssize_t)sizeof(text) - 1)


static inline int
append_str(Buffer *buffer, PyObject *text)
{
    Py_ssize_t length;
    const char *utf8 = PyUnicode_AsUTF8AndSize(text, &length);
    return utf8 == NULL ? -1 : append(buffer, utf8, length);
}

int append_call(Buffer *buffer, PyObject *helper, PyObject *argument);
/* Caches of Python answers keep at most CACHE_LIMIT entries of at most CACHED_LENGTH chars. */
#define CACHE_LIMIT 4096
#define CACHED_LENGTH 256
int append_cached(Buffer *buffer, PyObject *cache, PyObject *helper, PyObject *argument);
int append_double(Buffer *buffer, double value);
/* append_double without the cache of spellings: for measures, which rarely repeat (and would
   push the scores' spellings out). */
int append_measure(Buffer *buffer, double value);
PyObject *number_spelling(PyObject *number);

/* An integer in decimal (snprintf costs more than the rest of a record's small numbers). */
static inline int
append_integer(Buffer *buffer, long long value)
{
    char digits[24];
    char *at = digits + sizeof digits;
    unsigned long long magnitude = value < 0 ? 0ULL - (unsigned long long)value
                                             : (unsigned long long)value;
    do {
        *--at = (char)('0' + magnitude % 10);
        magnitude /= 10;
    } while (magnitude);
    if (value < 0) {
        *--at = '-';
    }
    return append(buffer, at, (Py_ssize_t)(digits + sizeof digits - at));
}

/* ------------------------------------------------------------------------------------------ */
/* Which lines the fast path may read (strict.c).                                              */

typedef struct {
    const char *text; /* in the line, or in Scratch.decoded when the key had escapes */
    Py_ssize_t length;
} Key;

/* Memory the scanner reuses from line to line (one per call of score_block). */
typedef struct {
    Key *keys; /* the keys of the objects still open, outermost first */
    Py_ssize_t key_capacity;
    char *decoded; /* the UTF-8 text of keys that had escapes */
    Py_ssize_t decoded_capacity;
    Py_ssize_t *slots; /* the hash table of a large object's keys */
    Py_ssize_t slot_capacity;
    Key inline_keys[128];
} Scratch;

void scratch_init(Scratch *scratch);
void scratch_free(Scratch *scratch);

/* 1 when `text` is one JSON value that the general path's strict parser reads without
   objection and into the value msgspec gives: no object repeats a key, every integer is within
   2**53 and every number below 1e308 in magnitude, every string is UTF-8 with its surrogate
   escapes paired, nesting is at most 256 deep, only JSON whitespace around it. 0 when the fast
   path must decline the line (not always wrong JSON: only not surely read alike), -1 on error. */
int unambiguous_json(Scratch *scratch, const char *text, Py_ssize_t length);

/* array_lines(data) -> the elements of a .json file's top-level array one per line, or None
   (arrays.c). */
PyObject *array_lines(PyObject *module, PyObject *data);

/* ------------------------------------------------------------------------------------------ */
/* Reasons of one dimension: a list of str, later redacted and quoted by lines.reason_json.   */

typedef struct {
    double score;
    PyObject *reasons; /* list of str */
} Result;

int add_reason(PyObject *reasons, PyObject *text);
/* prefix + ", ".join(items) */
int add_joined(PyObject *reasons, const char *prefix, PyObject *items);
/* Items of `items` (a list of str) that are (want=1) or are not (want=0) in `among`. */
PyObject *select_items(PyObject *items, PyObject *among, int want);

static inline int
is_list(PyObject *value)
{
    return value != NULL && PyList_CheckExact(value);
}

/* ------------------------------------------------------------------------------------------ */
/* The dimensions, one function each (dimensions.c, trace.c); the two checks helpers.          */

int hard_invariants(PyObject *base, Result *result);
int semantic_outcome(PyObject *base, Result *result);
int trajectory_restraint(PyObject *base, Result *result);
int trace_completeness_v1(PyObject *base, Result *result);
int quality_efficiency(PyObject *base, Result *result);
/* SCORING.md 1.4: a part's checks are non-empty with unique ids; -1 otherwise. */
int checks_valid(PyObject *part);
/* Share of passing checks and the reasons of the failing ones. */
int score_checks(PyObject *part, Result *result);

/* The case's trace expectation, prepared by fastpath.py. */
typedef struct {
    int present;
    const char *capture;
    PyObject *dispositions; /* tuple of str */
    PyObject *lineage;      /* tuple of str */
} TraceExpectation;

int trace_lineage(PyObject *lineage, const TraceExpectation *expectation, Result *result);

/* ------------------------------------------------------------------------------------------ */
/* The audit (audit.c) and the line (line.c).                                                 */

/* The case plan (fastpath.case_plan): a tuple in this order. */
enum {
    PLAN_TRACE_PRESENT,
    PLAN_CAPTURE,
    PLAN_DISPOSITIONS,
    PLAN_LINEAGE,
    PLAN_ISSUE_STATUS,
    PLAN_RUN_STATUS,
    PLAN_SEMANTIC_DISPOSITION,
    PLAN_MAX_ATTEMPTS,
    PLAN_MAX_RUNS,
    PLAN_RECOVERY_OWNER,
    PLAN_COMMENT_COUNT,
    PLAN_RESPONSE_SOURCE,
    PLAN_ORDERED_MARKERS,
    PLAN_REQUIRED_EVENTS,
    PLAN_FORBIDDEN_EVENTS,
    PLAN_ACTIVITY_FAMILIES,
    PLAN_ARTIFACT_DIGESTS,
    PLAN_OPERATION_IDS,
    PLAN_DIGEST_VERIFIED,
    PLAN_ORDERED,
    PLAN_PROVIDERS,
    PLAN_SIZE
};

/* How many findings of the case's assertions failed; -1 on error. */
int audit_failed(PyObject *observation, PyObject *plan);

#define DIMENSION_COUNT 8

/* What a block's scored records add to the run summary. */
typedef struct {
    long long scored, gate_failures, unscoreable, audit_failed;
} Counts;

/* What a scorecard line says, as numbers: what a row reads of it (row.c). */
typedef struct {
    int unscoreable, gate_passed, passed, audit;
    double overall;
    double scores[DIMENSION_COUNT];
    int dimension_passed[DIMENSION_COUNT];
} Card;

/* Appends the scorecard line of one recognised observation to `out` and describes it in `card`:
   1 when written, 0 when the Python path must decide (out may hold part of a line: the caller
   rolls it back), -1 on error. Without `audited`, the failed findings are left to the caller
   (records mode: record.c audits the line in full). */
int score_record(Buffer *out, PyObject *observation, PyObject *plan, PyObject *policy,
                 PyObject *head, Counts *counts, Card *card, int audited);

/* The row plan (fastpath.row_plan): per column of contract.ROW_COLUMNS, (source, argument). */
enum {
    ROW_BUNDLE,
    ROW_CANDIDATE,
    ROW_PROVIDER,
    ROW_MODEL,
    ROW_TIER,
    ROW_CASE,
    ROW_REPETITION,
    ROW_CLASSIFICATION,
    ROW_SCORE,     /* argument: the dimension's index */
    ROW_PASSED,    /* argument: the dimension's index */
    ROW_OVERALL,
    ROW_GATE,
    ROW_ALL_PASSED,
    ROW_MEASURE,   /* argument: the metric's field name */
    ROW_COUNT      /* argument: the metric's field name */
};

/* The row of one scored observation (row.c): `rows` is (plan, bundle id, labels, nan, one,
   audit gates), labels a dict of candidate -> (model, tier). A new tuple; NULL without an error set when a
   value is not what the row may hold (the Python path decides), NULL with one on error. */
PyObject *build_row(PyObject *observation, const Card *card, PyObject *rows);

/* Records mode (record.c): what write_record needs besides the line, set once per block. */
typedef struct {
    Buffer *out;          /* the block's record lines */
    Buffer findings;      /* scratch: one line's findings */
    PyObject *checks;     /* case id -> fast._records.record_checks of its plan */
    PyObject *heads;      /* case id -> `{"schema":...,"candidateId":` */
    PyObject *labels;     /* candidate -> `"model":...,"tier":...,` (absent: both null) */
    PyObject *source_head; /* `"source":{"file":...,"line":` (array: `...null,"index":`) */
    int array;            /* the block is a .json array's elements: line n is index n - 1 */
    int audit_gates;      /* the policy's auditGate */
    PyObject *bundle;     /* the bundle id */
    PyObject *keys;       /* the run keys (bundle, candidate, case) of the lines in `out` */
} RecordWriter;

/* Appends the record line (with its newline) of one scored observation to writer->out, around
   its scorecard line (without newline), and sets card->audit to its failed findings: 1, 0 when
   the Python path must decide (nothing appended), -1 on error. */
int write_record(RecordWriter *writer, PyObject *observation, PyObject *case_id, Card *card,
                 const char *scorecard, Py_ssize_t scorecard_length, Py_ssize_t number);

/* number_records(text, keys, repetitions) -> text with each "repetition":0, numbered
   (record.c). */
PyObject *number_records(PyObject *module, PyObject *const *args, Py_ssize_t nargs);

#endif
