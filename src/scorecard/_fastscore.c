/* The scoring hot path in C: a block of JSON Lines -> scorecard lines and run counts.

   This is a second implementation of validation.py's contract rules, scoring.py (dimensions),
   audit.py (the count of failed findings) and lines.py (the scorecard line), for the one case
   that dominates every large run: a plain, plainly valid observation scored for the `jsonl`
   format. Lines are decoded into the msgspec structs of recognize.py. A line it is not sure of
   is handed back, and the caller takes the Python path, which stays the definition:
   tests/test_fastpath.py checks both give the same bytes and counts on the conformance table,
   the sample bundles and generated and corrupted observations. See docs/performance.md.

   Text that may need redacting or escaping (reasons, ids) is handed to the Python helpers of
   lines.py (their answers cached here); numbers use CPython's shortest repr, respelt as
   JavaScript does. */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>
#include <string.h>

#ifndef Py_T_OBJECT_EX /* the 3.12 spelling */
#define Py_T_OBJECT_EX T_OBJECT_EX
#endif

/* ------------------------------------------------------------------------------------------ */
/* Module state: helpers and constants set once by configure().                               */

static PyObject *UNSET;              /* msgspec.UNSET: an absent optional field */
static PyObject *reason_json;        /* lines.reason_json: redact + quote */
static PyObject *string_json;        /* lines.json_string: quote (cached) */
static PyObject *number_text;        /* jsformat.format_js_number */
static PyObject *comma_space;        /* ", " */
static PyObject *reason_cache;       /* reason -> its JSON text */
static PyObject *string_cache;       /* id -> its JSON text */

#define NAMES(X)                                                                                 \
    X(base) X(lifecycle) X(continuation) X(presentation) X(traceLineage) X(metrics)             \
    X(observedPrpEventTypes) X(artifactDigests) X(classification) X(candidateId) X(provider)    \
    X(observedCalls) X(expectedCalls) X(forbiddenCalls) X(controlPlaneOwned) X(authorization)   \
    X(expected) X(observed) X(finalState) X(trace) X(wireEvents) X(runId) X(sessionId)         \
    X(turnId) X(itemId) X(receiptIds) X(terminalPresent) X(eventType) X(payload)                \
    X(normalizedSessionId) X(budget) X(efficiency) X(checks) X(id) X(passed) X(reason)          \
    X(capture) X(frameCount) X(byteCount) X(traceRef) X(digestVerified) X(ordered)             \
    X(dispositions) X(lineage) X(issueStatus) X(runStatus) X(semanticDisposition)              \
    X(recoveryOwner) X(attempts) X(runs) X(commentCount) X(responseSource) X(markers)          \
    X(activityFamilies) X(latencyMs) X(totalTokens) X(costUsd) X(maxLatencyMs)                 \
    X(maxTotalTokens) X(maxCostUsd) X(maxAttempts) X(caseId) X(failure) X(message)

#define DECLARE(name) static PyObject *s_##name;
NAMES(DECLARE)
#undef DECLARE
/* Keys of the free-form payload dicts of wire events. */
static PyObject *k_semantic_tool, *k_schema, *k_schemaVersion, *k_phase, *k_operationReceiptId,
    *k_operationId, *k_stopReason, *k_receiptId, *k_decisionId;

/* Where field() found fields: (type, name) -> slot offset, direct-mapped. An entry holds its
   type and name, so neither address can be reused by another object while it is cached. */
#define SLOT_CACHE_SIZE 256
static struct {
    PyTypeObject *type;
    PyObject *name;
    Py_ssize_t offset;
} slot_cache[SLOT_CACHE_SIZE];

/* A field of a struct, borrowed (the struct owns it and outlives the call); NULL if UNSET.
   msgspec keeps struct fields in slots: read the slot the type's member descriptor names
   (what PyObject_GetAttr ends up doing, without the generic lookup). */
static PyObject *
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
static PyObject *
item(PyObject *dict, PyObject *key)
{
    return PyDict_CheckExact(dict) ? PyDict_GetItemWithError(dict, key) : NULL;
}

static int
is_text(PyObject *value, const char *text)
{
    return value != NULL && PyUnicode_CheckExact(value) &&
           PyUnicode_CompareWithASCIIString(value, text) == 0;
}

static int
is_nonempty_text(PyObject *value)
{
    return value != NULL && PyUnicode_CheckExact(value) && PyUnicode_GET_LENGTH(value) > 0;
}

/* JavaScript `=== 1`: true is not 1 there. */
static int
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

static void
buffer_init(Buffer *buffer)
{
    buffer->data = buffer->inline_data;
    buffer->size = 0;
    buffer->capacity = sizeof(buffer->inline_data);
}

static void
buffer_free(Buffer *buffer)
{
    if (buffer->data != buffer->inline_data) {
        PyMem_Free(buffer->data);
    }
}

static int
append(Buffer *buffer, const char *text, Py_ssize_t length)
{
    if (buffer->size + length > buffer->capacity) {
        Py_ssize_t capacity = 2 * (buffer->size + length);
        char *grown = PyMem_Malloc(capacity);
        if (grown == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        memcpy(grown, buffer->data, buffer->size);
        buffer_free(buffer);
        buffer->data = grown;
        buffer->capacity = capacity;
    }
    memcpy(buffer->data + buffer->size, text, length);
    buffer->size += length;
    return 0;
}

#define APPEND_LITERAL(buffer, text) append((buffer), (text), (Py_ssize_t)sizeof(text) - 1)

static int
append_str(Buffer *buffer, PyObject *text)
{
    Py_ssize_t length;
    const char *utf8 = PyUnicode_AsUTF8AndSize(text, &length);
    return utf8 == NULL ? -1 : append(buffer, utf8, length);
}

/* Append helper(argument), a str the helper returns. */
static int
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
#define CACHE_LIMIT 4096
#define CACHED_LENGTH 256

static int
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

static int
append_double(Buffer *buffer, double value)
{
    size_t slot = spelt_slot(value);
    if (spelt[slot].used && memcmp(&spelt[slot].value, &value, sizeof value) == 0) {
        return append(buffer, spelt[slot].text, (Py_ssize_t)strlen(spelt[slot].text));
    }
    char text[SPELLING_SIZE];
    Py_ssize_t length = spell_double(value, text);
    if (length < 0) {
        return -1;
    }
    if (length == 0) {
        PyObject *number = PyFloat_FromDouble(value);
        int status = number == NULL ? -1 : append_call(buffer, number_text, number);
        Py_XDECREF(number);
        return status;
    }
    spelt[slot].value = value;
    spelt[slot].used = 1;
    memcpy(spelt[slot].text, text, (size_t)length + 1);
    return append(buffer, text, length);
}

/* A JSON number of an observation as jsformat.format_js_number spells it (a new reference):
   here for integers JavaScript holds exactly and doubles repr spells without an exponent,
   otherwise by calling it. */
static PyObject *
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

/* ------------------------------------------------------------------------------------------ */
/* Reasons of one dimension: a list of str, later redacted and quoted by lines.reason_json.   */

typedef struct {
    double score;
    PyObject *reasons; /* list of str */
} Result;

static int
add_reason(PyObject *reasons, PyObject *text)
{
    if (text == NULL) {
        return -1;
    }
    int status = PyList_Append(reasons, text);
    Py_DECREF(text);
    return status;
}

/* prefix + ", ".join(items) */
static int
add_joined(PyObject *reasons, const char *prefix, PyObject *items)
{
    PyObject *joined = PyUnicode_Join(comma_space, items);
    if (joined == NULL) {
        return -1;
    }
    PyObject *text = PyUnicode_FromFormat("%s%U", prefix, joined);
    Py_DECREF(joined);
    return add_reason(reasons, text);
}

/* Items of `items` (a list of str) that are (want=1) or are not (want=0) in `among`. */
static PyObject *
select_items(PyObject *items, PyObject *among, int want)
{
    PyObject *selected = PyList_New(0);
    if (selected == NULL) {
        return NULL;
    }
    for (Py_ssize_t index = 0; index < PyList_GET_SIZE(items); index++) {
        PyObject *entry = PyList_GET_ITEM(items, index);
        int found = PySequence_Contains(among, entry);
        if (found < 0 || (found == want && PyList_Append(selected, entry) < 0)) {
            Py_DECREF(selected);
            return NULL;
        }
    }
    return selected;
}

static int
is_list(PyObject *value)
{
    return value != NULL && PyList_CheckExact(value);
}

/* ------------------------------------------------------------------------------------------ */
/* The dimensions (scoring.py, function for function).                                         */

static int
hard_invariants(PyObject *base, Result *result)
{
    PyObject *observed = field(base, s_observedCalls);
    PyObject *forbidden = field(base, s_forbiddenCalls);
    PyObject *owned = field(base, s_controlPlaneOwned);
    PyObject *authorization = field(base, s_authorization);
    if (!is_list(observed) || !is_list(forbidden) || owned == NULL || authorization == NULL) {
        return -1;
    }
    PyObject *invoked = select_items(observed, forbidden, 1);
    if (invoked == NULL) {
        return -1;
    }
    int status = 0;
    if (PyList_GET_SIZE(invoked) > 0) {
        status = add_joined(result->reasons, "forbidden call(s) invoked: ", invoked);
    }
    Py_DECREF(invoked);
    if (status == 0 && owned == Py_True && PyList_GET_SIZE(observed) > 0) {
        status = add_joined(
            result->reasons, "control-plane-owned action taken by tool call(s): ", observed);
    }
    PyObject *expected = field(authorization, s_expected);
    PyObject *seen = field(authorization, s_observed);
    if (status == 0 && expected != NULL && !is_text(expected, "allowed") &&
        is_text(seen, "allowed")) {
        status = add_reason(result->reasons,
                            PyUnicode_FromFormat("operation allowed but should be %U", expected));
    }
    result->score = PyList_GET_SIZE(result->reasons) ? 0.0 : 1.0;
    return status;
}

static int
semantic_outcome(PyObject *base, Result *result)
{
    PyObject *state = field(base, s_finalState);
    PyObject *authorization = field(base, s_authorization);
    if (state == NULL || authorization == NULL) {
        return -1;
    }
    PyObject *observed = field(state, s_observed), *expected = field(state, s_expected);
    if (observed == NULL || expected == NULL) {
        return -1;
    }
    int differs = PyObject_RichCompareBool(observed, expected, Py_NE);
    if (differs < 0) {
        return -1;
    }
    if (differs &&
        add_reason(result->reasons, PyUnicode_FromFormat("control-plane state %U, expected %U",
                                                         observed, expected)) < 0) {
        return -1;
    }
    PyObject *declared = field(authorization, s_expected);
    PyObject *seen = field(authorization, s_observed);
    if (seen == NULL) {
        return -1;
    }
    if (is_text(declared, "allowed") && !is_text(seen, "allowed") &&
        add_reason(result->reasons,
                   PyUnicode_FromFormat("operation %U but the case declared it allowed", seen)) <
            0) {
        return -1;
    }
    result->score = PyList_GET_SIZE(result->reasons) ? 0.0 : 1.0;
    return 0;
}

static int
trajectory_restraint(PyObject *base, Result *result)
{
    PyObject *expected = field(base, s_expectedCalls), *observed = field(base, s_observedCalls);
    if (!is_list(expected) || !is_list(observed)) {
        return -1;
    }
    PyObject *missing = select_items(expected, observed, 0);
    PyObject *extra = missing ? select_items(observed, expected, 0) : NULL;
    int status = extra == NULL ? -1 : 0;
    if (status == 0) {
        Py_ssize_t n_missing = PyList_GET_SIZE(missing), n_extra = PyList_GET_SIZE(extra);
        Py_ssize_t denominator = PyList_GET_SIZE(expected) + n_extra;
        if (denominator < 1) {
            denominator = 1;
        }
        double share = (double)(denominator - n_missing - n_extra) / (double)denominator;
        result->score = share < 0.0 ? 0.0 : (share > 1.0 ? 1.0 : share);
        if (n_missing) {
            status = add_joined(result->reasons, "missing required call(s): ", missing);
        }
        if (status == 0 && n_extra) {
            status = add_joined(result->reasons, "unexpected call(s): ", extra);
        }
        if (status == 0 && PyList_GET_SIZE(expected) == 0 && PyList_GET_SIZE(observed) == 0) {
            status = add_reason(result->reasons,
                                PyUnicode_FromString("restraint honored: no call made"));
        }
    }
    Py_XDECREF(missing);
    Py_XDECREF(extra);
    return status;
}

/* One trace check: passed or not, and the reason label. */
static int
trace_check(Result *result, int *passed, int *total, int ok, const char *label)
{
    (*total)++;
    if (ok) {
        (*passed)++;
        return 0;
    }
    return add_reason(result->reasons, PyUnicode_FromFormat("trace missing %s", label));
}

/* The semantic tool receipt of a tool-result event, borrowed, or NULL. */
static PyObject *
semantic_tool(PyObject *event)
{
    if (!is_text(field(event, s_eventType), "mcp_app.tool_result")) {
        return NULL;
    }
    PyObject *payload = field(event, s_payload);
    if (payload == NULL) {
        return NULL;
    }
    PyObject *tool = item(payload, k_semantic_tool);
    if (tool != NULL && PyDict_CheckExact(tool) &&
        is_text(item(tool, k_schema), "paperclip.prp.semantic_tool.v1") &&
        is_one(item(tool, k_schemaVersion)) && is_text(item(tool, k_phase), "result")) {
        return tool;
    }
    return NULL;
}

static int
wire_trace(PyObject *events, PyObject *calls, Result *result, int *passed, int *total)
{
    Py_ssize_t count = PyList_GET_SIZE(events), n_calls = PyList_GET_SIZE(calls);
    Py_ssize_t receipts = 0, receipt_ids = 0, first_terminal = -1, anchor = -1, first_turn = -1;
    int match = 1;
    for (Py_ssize_t index = 0; index < count; index++) {
        PyObject *event = PyList_GET_ITEM(events, index);
        PyObject *type = field(event, s_eventType);
        if (type == NULL) {
            return -1;
        }
        PyObject *tool = semantic_tool(event);
        if (PyErr_Occurred()) {
            return -1;
        }
        if (tool != NULL) {
            PyObject *receipt = item(tool, k_operationReceiptId);
            int has_receipt = is_nonempty_text(receipt);
            receipt_ids += has_receipt;
            if (receipts < n_calls) {
                PyObject *operation = item(tool, k_operationId);
                PyObject *call = PyList_GET_ITEM(calls, receipts);
                if (!(operation != NULL && PyUnicode_CheckExact(operation) &&
                      PyUnicode_Compare(operation, call) == 0 && has_receipt)) {
                    match = 0;
                }
            }
            receipts++;
        }
        if (anchor < 0 && is_text(type, "mcp_app.tool_result")) {
            anchor = index;
        }
        if (first_turn < 0 && is_nonempty_text(field(event, s_turnId))) {
            first_turn = index;
        }
        if (first_terminal < 0 && is_text(type, "run.terminal")) {
            first_terminal = index;
        }
    }
    if (PyErr_Occurred()) {
        return -1;
    }
    if (anchor < 0) {
        anchor = first_turn;
    }
    match = match && receipts == n_calls;
    PyObject *run_id = count ? field(PyList_GET_ITEM(events, 0), s_runId) : NULL;
    PyObject *at = anchor >= 0 ? PyList_GET_ITEM(events, anchor) : NULL;
    if (trace_check(result, passed, total, is_nonempty_text(run_id), "runId") < 0 ||
        trace_check(result, passed, total,
                    at != NULL && is_nonempty_text(field(at, s_normalizedSessionId)),
                    "sessionId") < 0 ||
        trace_check(result, passed, total, at != NULL && is_nonempty_text(field(at, s_turnId)),
                    "turnId") < 0 ||
        trace_check(result, passed, total, at != NULL && is_nonempty_text(field(at, s_itemId)),
                    "itemId") < 0 ||
        trace_check(result, passed, total, first_terminal >= 0, "terminal") < 0 ||
        trace_check(result, passed, total, receipt_ids >= n_calls && match,
                    "receipt-per-call") < 0) {
        return -1;
    }
    if (first_terminal < 0) {
        return 0;
    }
    PyObject *payload = field(PyList_GET_ITEM(events, first_terminal), s_payload);
    /* `payload.get(...) if payload else None`: an empty payload holds no stop reason. */
    PyObject *stop = payload != NULL && PyDict_GET_SIZE(payload) ? item(payload, k_stopReason)
                                                                   : NULL;
    if (stop == NULL || !PyDict_CheckExact(stop)) {
        return PyErr_Occurred() ? -1 : 0;
    }
    int ok = is_text(item(stop, k_schema), "paperclip.prp.stop_reason.v1") &&
             is_one(item(stop, k_schemaVersion)) && is_nonempty_text(item(stop, k_receiptId)) &&
             is_nonempty_text(item(stop, k_decisionId));
    return trace_check(result, passed, total, ok, "stop-reason-receipt");
}

static int
flat_trace(PyObject *trace, PyObject *calls, Result *result, int *passed, int *total)
{
    PyObject *receipt_ids = field(trace, s_receiptIds);
    PyObject *terminal = field(trace, s_terminalPresent);
    if (!is_list(receipt_ids) || terminal == NULL) {
        return -1;
    }
    int receipts_ok = PyList_GET_SIZE(receipt_ids) >= PyList_GET_SIZE(calls);
    for (Py_ssize_t index = 0; receipts_ok && index < PyList_GET_SIZE(receipt_ids); index++) {
        PyObject *receipt = PyList_GET_ITEM(receipt_ids, index);
        if (PyUnicode_CheckExact(receipt) && PyUnicode_GET_LENGTH(receipt) == 0) {
            receipts_ok = 0;
        }
    }
    if (trace_check(result, passed, total, is_nonempty_text(field(trace, s_runId)), "runId") <
            0 ||
        trace_check(result, passed, total, is_nonempty_text(field(trace, s_sessionId)),
                    "sessionId") < 0 ||
        trace_check(result, passed, total, is_nonempty_text(field(trace, s_turnId)), "turnId") <
            0 ||
        trace_check(result, passed, total, is_nonempty_text(field(trace, s_itemId)), "itemId") <
            0 ||
        trace_check(result, passed, total, terminal == Py_True, "terminal") < 0 ||
        trace_check(result, passed, total, receipts_ok, "receipt-per-call") < 0) {
        return -1;
    }
    return PyErr_Occurred() ? -1 : 0;
}

static int
trace_completeness_v1(PyObject *base, Result *result)
{
    PyObject *trace = field(base, s_trace), *calls = field(base, s_observedCalls);
    if (trace == NULL || !is_list(calls)) {
        return -1;
    }
    PyObject *events = field(trace, s_wireEvents);
    int passed = 0, total = 0;
    int status = events != NULL ? (is_list(events) ? wire_trace(events, calls, result, &passed,
                                                                 &total)
                                                   : -1)
                                : flat_trace(trace, calls, result, &passed, &total);
    result->score = total ? (double)passed / (double)total : 0.0;
    return status;
}

static const char *BUDGET_LABELS[4][2] = {
    {"latencyMs", "maxLatencyMs"},
    {"totalTokens", "maxTotalTokens"},
    {"costUsd", "maxCostUsd"},
    {"attempts", "maxAttempts"},
};

static int
quality_efficiency(PyObject *base, Result *result)
{
    PyObject *budget = field(base, s_budget), *efficiency = field(base, s_efficiency);
    if (PyErr_Occurred()) {
        return -1;
    }
    PyObject *observed_names[4] = {s_latencyMs, s_totalTokens, s_costUsd, s_attempts};
    PyObject *limit_names[4] = {s_maxLatencyMs, s_maxTotalTokens, s_maxCostUsd, s_maxAttempts};
    int declared = 0, within = 0;
    for (int index = 0; index < 4; index++) {
        PyObject *limit = budget != NULL ? field(budget, limit_names[index]) : NULL;
        if (limit == NULL) {
            if (PyErr_Occurred()) {
                return -1;
            }
            continue;
        }
        declared++;
        PyObject *observed = efficiency != NULL ? field(efficiency, observed_names[index]) : NULL;
        if (PyErr_Occurred()) {
            return -1;
        }
        if (observed != NULL) {
            int ok = PyObject_RichCompareBool(observed, limit, Py_LE);
            if (ok < 0) {
                return -1;
            }
            if (ok) {
                within++;
                continue;
            }
            PyObject *observed_text = number_spelling(observed);
            PyObject *limit_text = observed_text ? number_spelling(limit) : NULL;
            PyObject *text =
                limit_text ? PyUnicode_FromFormat("%s %U exceeds budget %U",
                                                  BUDGET_LABELS[index][0], observed_text,
                                                  limit_text)
                           : NULL;
            Py_XDECREF(observed_text);
            Py_XDECREF(limit_text);
            if (add_reason(result->reasons, text) < 0) {
                return -1;
            }
        }
        else if (add_reason(result->reasons,
                            PyUnicode_FromFormat("no observed %s to check against budget",
                                                 BUDGET_LABELS[index][0])) < 0) {
            return -1;
        }
    }
    if (declared == 0) {
        result->score = 1.0;
        return add_reason(result->reasons, PyUnicode_FromString("no efficiency budget declared"));
    }
    result->score = (double)within / (double)declared;
    return 0;
}

/* SCORING.md 1.4: each part's checks are non-empty with unique ids; -1 otherwise (the Python
   path reports the error). */
static int
checks_valid(PyObject *part)
{
    PyObject *checks = part != NULL ? field(part, s_checks) : NULL;
    if (!is_list(checks) || PyList_GET_SIZE(checks) == 0) {
        return -1;
    }
    /* Lists are short: compare each id with those before it (longer lists: the Python path). */
    enum { MOST_CHECKS = 32 };
    PyObject *ids[MOST_CHECKS];
    Py_ssize_t count = PyList_GET_SIZE(checks);
    if (count > MOST_CHECKS) {
        return -1;
    }
    for (Py_ssize_t index = 0; index < count; index++) {
        PyObject *id = field(PyList_GET_ITEM(checks, index), s_id);
        if (id == NULL || !PyUnicode_CheckExact(id)) {
            return -1;
        }
        Py_ssize_t length = PyUnicode_GET_LENGTH(id);
        int kind = PyUnicode_KIND(id);
        for (Py_ssize_t earlier = 0; earlier < index; earlier++) {
            PyObject *other = ids[earlier];
            if (PyUnicode_GET_LENGTH(other) == length && PyUnicode_KIND(other) == kind &&
                memcmp(PyUnicode_DATA(other), PyUnicode_DATA(id), (size_t)(length * kind)) == 0) {
                return -1;
            }
        }
        ids[index] = id;
    }
    return 0;
}

/* Share of passing checks and the reasons of the failing ones. */
static int
score_checks(PyObject *part, Result *result)
{
    PyObject *checks = field(part, s_checks);
    if (!is_list(checks) || PyList_GET_SIZE(checks) == 0) {
        return -1;
    }
    Py_ssize_t count = PyList_GET_SIZE(checks), failed = 0;
    for (Py_ssize_t index = 0; index < count; index++) {
        PyObject *check = PyList_GET_ITEM(checks, index);
        PyObject *passed = field(check, s_passed);
        if (passed == NULL) {
            return -1;
        }
        if (passed == Py_True) {
            continue;
        }
        failed++;
        PyObject *reason = field(check, s_reason);
        if (reason != NULL) {
            Py_INCREF(reason);
        }
        else {
            PyObject *id = PyErr_Occurred() ? NULL : field(check, s_id);
            reason = id != NULL ? PyUnicode_FromFormat("check failed: %U", id) : NULL;
        }
        if (add_reason(result->reasons, reason) < 0) {
            return -1;
        }
    }
    result->score = (double)(count - failed) / (double)count;
    return 0;
}

/* The case's trace expectation, prepared by fastpath.py. */
typedef struct {
    int present;
    const char *capture;
    PyObject *dispositions; /* tuple of str */
    PyObject *lineage;      /* tuple of str */
} TraceExpectation;

static int
lineage_check(Result *result, int *passed, int *total, int ok, PyObject *text)
{
    (*total)++;
    if (ok) {
        (*passed)++;
        Py_XDECREF(text);
        return text == NULL ? -1 : 0;
    }
    return add_reason(result->reasons, text);
}

static int
trace_lineage(PyObject *lineage, const TraceExpectation *expectation, Result *result)
{
    if (lineage == NULL) {
        return -1;
    }
    PyObject *capture = field(lineage, s_capture), *frames = field(lineage, s_frameCount),
             *bytes = field(lineage, s_byteCount), *digest = field(lineage, s_digestVerified),
             *ordered = field(lineage, s_ordered);
    if (capture == NULL || frames == NULL || bytes == NULL || digest == NULL || ordered == NULL ||
        !PyLong_CheckExact(frames) || !PyLong_CheckExact(bytes)) {
        return -1;
    }
    int passed = 0, total = 0, status = 0;
    int no_frames = _PyLong_Sign(frames) == 0, no_bytes = _PyLong_Sign(bytes) == 0;
    if (strcmp(expectation->capture, "off") == 0) {
        PyObject *reference = field(lineage, s_traceRef);
        if (PyErr_Occurred()) {
            return -1;
        }
        int isolated = is_text(capture, "off") && no_frames && no_bytes &&
                       !(reference != NULL && PyObject_IsTrue(reference));
        status = lineage_check(
            result, &passed, &total, isolated,
            PyUnicode_FromString("capture-off execution retained provider trace data"));
    }
    else if (strcmp(expectation->capture, "on") == 0 || is_text(capture, "on")) {
        int present = is_text(capture, "on") && !no_frames && !no_bytes;
        status = lineage_check(result, &passed, &total, present,
                               PyUnicode_FromString("provider trace capture is empty"));
        if (status == 0) {
            status = lineage_check(
                result, &passed, &total, digest == Py_True,
                PyUnicode_FromString("provider trace frame digest or byte length did not verify"));
        }
        if (status == 0) {
            status = lineage_check(
                result, &passed, &total, ordered == Py_True,
                PyUnicode_FromString(
                    "provider trace frame or debug sequence is not strictly ordered"));
        }
    }
    else {
        passed++;
        total++;
    }
    if (status == 0 && expectation->present) {
        PyObject *exercised = field(lineage, s_dispositions), *shapes = field(lineage, s_lineage);
        if (!is_list(exercised) || !is_list(shapes)) {
            return -1;
        }
        for (Py_ssize_t i = 0; status == 0 && i < PyTuple_GET_SIZE(expectation->dispositions);
             i++) {
            PyObject *wanted = PyTuple_GET_ITEM(expectation->dispositions, i);
            int found = PySequence_Contains(exercised, wanted);
            status = found < 0 ? -1
                               : lineage_check(result, &passed, &total, found,
                                               PyUnicode_FromFormat(
                                                   "provider trace did not exercise %U mapping",
                                                   wanted));
        }
        for (Py_ssize_t i = 0; status == 0 && i < PyTuple_GET_SIZE(expectation->lineage); i++) {
            PyObject *wanted = PyTuple_GET_ITEM(expectation->lineage, i);
            int found = PySequence_Contains(shapes, wanted);
            status = found < 0 ? -1
                               : lineage_check(result, &passed, &total, found,
                                               PyUnicode_FromFormat(
                                                   "provider trace did not exercise %U lineage",
                                                   wanted));
        }
    }
    result->score = (double)passed / (double)total;
    return status;
}

/* ------------------------------------------------------------------------------------------ */
/* The audit, reduced to what a jsonl run needs: how many findings failed (audit.py).          */

/* The failed findings of one `_equal` (fails_when Py_NE) or `_at_most` (Py_GT) assertion: 1
   when the case asserts it, the observation has the evidence, and `actual fails_when declared`
   holds. */
static int
failed_check(PyObject *declared, PyObject *actual, int fails_when)
{
    if (declared == Py_None || actual == NULL) {
        return PyErr_Occurred() ? -1 : 0;
    }
    return PyObject_RichCompareBool(actual, declared, fails_when);
}

/* Required items (tuple) missing from observed (list, or NULL: not observed). */
static int
failed_members(PyObject *required, PyObject *observed)
{
    if (observed == NULL) {
        return PyErr_Occurred() ? -1 : 0;
    }
    int failed = 0;
    for (Py_ssize_t index = 0; index < PyTuple_GET_SIZE(required); index++) {
        int found = PySequence_Contains(observed, PyTuple_GET_ITEM(required, index));
        if (found < 0) {
            return -1;
        }
        failed += !found;
    }
    return failed;
}

/* 1 when the required markers are not an ordered subsequence of those shown. */
static int
failed_markers(PyObject *required, PyObject *shown)
{
    if (PyTuple_GET_SIZE(required) == 0 || shown == NULL) {
        return PyErr_Occurred() ? -1 : 0;
    }
    if (!is_list(shown)) {
        return -1;
    }
    Py_ssize_t position = 0, length = PyList_GET_SIZE(shown);
    for (Py_ssize_t index = 0; index < PyTuple_GET_SIZE(required); index++) {
        PyObject *marker = PyTuple_GET_ITEM(required, index);
        for (;;) {
            if (position >= length) {
                return 1;
            }
            int same = PyObject_RichCompareBool(PyList_GET_ITEM(shown, position++), marker, Py_EQ);
            if (same < 0) {
                return -1;
            }
            if (same) {
                break;
            }
        }
    }
    return 0;
}

/* Every occurrence of a forbidden event type is a failed finding. */
static int
failed_forbidden(PyObject *forbidden, PyObject *observed)
{
    int failed = 0;
    for (Py_ssize_t index = 0; index < PyTuple_GET_SIZE(forbidden); index++) {
        Py_ssize_t count = PySequence_Count(observed, PyTuple_GET_ITEM(forbidden, index));
        if (count < 0) {
            return -1;
        }
        failed += (int)count;
    }
    return failed;
}

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

static int
audit_failed(PyObject *observation, PyObject *plan)
{
#define P(index) PyTuple_GET_ITEM(plan, index)
    PyObject *lifecycle = field(observation, s_lifecycle);
    PyObject *presentation = field(observation, s_presentation);
    PyObject *lineage = field(observation, s_traceLineage);
    PyObject *metrics = field(observation, s_metrics);
    PyObject *events = field(observation, s_observedPrpEventTypes);
    PyObject *digests = field(observation, s_artifactDigests);
    PyObject *base = field(observation, s_base);
    PyObject *provider = field(observation, s_provider);
    if (lifecycle == NULL || presentation == NULL || lineage == NULL || metrics == NULL ||
        !is_list(events) || !is_list(digests) || base == NULL || provider == NULL) {
        return -1;
    }
    PyObject *calls = field(base, s_observedCalls);
    PyObject *attempts = field(lifecycle, s_attempts);
    if (attempts == NULL && !PyErr_Occurred()) {
        attempts = field(metrics, s_attempts);
    }
    if (!is_list(calls) || PyErr_Occurred()) {
        return -1;
    }
    int parts[] = {
        failed_check(P(PLAN_ISSUE_STATUS), field(lifecycle, s_issueStatus), Py_NE),
        failed_check(P(PLAN_RUN_STATUS), field(lifecycle, s_runStatus), Py_NE),
        failed_check(P(PLAN_SEMANTIC_DISPOSITION), field(lifecycle, s_semanticDisposition), Py_NE),
        failed_check(P(PLAN_MAX_ATTEMPTS), attempts, Py_GT),
        failed_check(P(PLAN_MAX_RUNS), field(lifecycle, s_runs), Py_GT),
        failed_check(P(PLAN_RECOVERY_OWNER), field(lifecycle, s_recoveryOwner), Py_NE),
        failed_check(P(PLAN_COMMENT_COUNT), field(presentation, s_commentCount), Py_NE),
        failed_check(P(PLAN_RESPONSE_SOURCE), field(presentation, s_responseSource), Py_NE),
        failed_markers(P(PLAN_ORDERED_MARKERS), field(presentation, s_markers)),
        failed_members(P(PLAN_REQUIRED_EVENTS), events),
        failed_forbidden(P(PLAN_FORBIDDEN_EVENTS), events),
        failed_members(P(PLAN_ACTIVITY_FAMILIES), field(presentation, s_activityFamilies)),
        failed_members(P(PLAN_ARTIFACT_DIGESTS), digests),
        failed_members(P(PLAN_OPERATION_IDS), calls),
        failed_check(P(PLAN_DIGEST_VERIFIED), field(lineage, s_digestVerified), Py_NE),
        failed_check(P(PLAN_ORDERED), field(lineage, s_ordered), Py_NE),
    };
    int failed = 0;
    for (size_t index = 0; index < sizeof(parts) / sizeof(parts[0]); index++) {
        if (parts[index] < 0) {
            return -1;
        }
        failed += parts[index];
    }
    if (PyErr_Occurred()) {
        return -1;
    }
    int member = PySequence_Contains(P(PLAN_PROVIDERS), provider);
    return member < 0 ? -1 : failed + !member;
#undef P
}

/* ------------------------------------------------------------------------------------------ */
/* The scorecard line.                                                                         */

#define DIMENSION_COUNT 8
enum {
    HARD_INVARIANTS,
    LIFECYCLE_INTEGRITY,
    SEMANTIC_OUTCOME,
    TRAJECTORY_RESTRAINT,
    TRACE_COMPLETENESS,
    QUALITY_EFFICIENCY,
    CONTINUATION_INTEGRITY,
    PRESENTATION_FIDELITY
};

/* The policy plan (fastpath.policy_plan): per dimension, in canonical order, a tuple
   (head, gate, weight, weight_text, threshold, unscoreable_text): `head` is
   `"name":{"dimension":"name","score":`, `unscoreable_text` the whole entry of an unscoreable
   run. */
static int
append_dimension(Buffer *out, PyObject *entry, const Result *result, int passed)
{
    int gate = PyTuple_GET_ITEM(entry, 1) == Py_True;
    if (append_str(out, PyTuple_GET_ITEM(entry, 0)) < 0 || append_double(out, result->score) < 0 ||
        (passed ? APPEND_LITERAL(out, ",\"passed\":true,\"gate\":")
                : APPEND_LITERAL(out, ",\"passed\":false,\"gate\":")) < 0 ||
        (gate ? APPEND_LITERAL(out, "true,\"weight\":") : APPEND_LITERAL(out, "false,\"weight\":")) <
            0 ||
        append_str(out, PyTuple_GET_ITEM(entry, 3)) < 0 || APPEND_LITERAL(out, ",\"reasons\":[") < 0) {
        return -1;
    }
    for (Py_ssize_t index = 0; index < PyList_GET_SIZE(result->reasons); index++) {
        if ((index && APPEND_LITERAL(out, ",") < 0) ||
            append_cached(out, reason_cache, reason_json, PyList_GET_ITEM(result->reasons, index)) <
                0) {
            return -1;
        }
    }
    return APPEND_LITERAL(out, "]}");
}

/* What a block's scored records add to the run summary. */
typedef struct {
    long long scored, gate_failures, unscoreable, audit_failed;
} Counts;

/* Appends the scorecard line of one recognised observation to `out`: 1 when written, 0 when the
   Python path must decide (out may hold part of a line: the caller rolls it back), -1 on error. */
static int
score_record(Buffer *out, PyObject *observation, PyObject *plan, PyObject *policy,
             PyObject *head, Counts *counts)
{
    Result results[DIMENSION_COUNT];
    for (int index = 0; index < DIMENSION_COUNT; index++) {
        results[index].score = 0.0;
        results[index].reasons = NULL;
    }
    int status = 0;
    PyObject *classification = field(observation, s_classification);
    PyObject *candidate = field(observation, s_candidateId);
    if (classification == NULL || !PyUnicode_CheckExact(classification) || candidate == NULL ||
        checks_valid(field(observation, s_lifecycle)) < 0 ||
        checks_valid(field(observation, s_continuation)) < 0 ||
        checks_valid(field(observation, s_presentation)) < 0) {
        goto done;
    }
    int unscoreable = is_text(classification, "infrastructure_failure") ||
                      is_text(classification, "skipped");
    int audit = 0, gate_passed = 1, all_passed = 1;
    /* `{"schema":...,"bundleId":...,"caseId":...,"candidateId":`: made by the caller. */
    if (append_str(out, head) < 0 || append_cached(out, string_cache, string_json, candidate) < 0 ||
        APPEND_LITERAL(out, ",\"classification\":\"") < 0 || append_str(out, classification) < 0 ||
        APPEND_LITERAL(out, "\",\"dimensions\":{") < 0) {
        goto done;
    }
    if (unscoreable) {
        for (int index = 0; index < DIMENSION_COUNT; index++) {
            PyObject *entry = PyTuple_GET_ITEM(policy, index);
            if ((index && APPEND_LITERAL(out, ",") < 0) ||
                append_str(out, PyTuple_GET_ITEM(entry, 5)) < 0) {
                goto done;
            }
        }
        if (APPEND_LITERAL(out, "},\"overall\":{\"score\":null,\"gatePassed\":null,"
                                "\"passed\":null}}\n") < 0) {
            goto done;
        }
    }
    else {
        for (int index = 0; index < DIMENSION_COUNT; index++) {
            results[index].reasons = PyList_New(0);
            if (results[index].reasons == NULL) {
                goto done;
            }
        }
        PyObject *base = field(observation, s_base);
        if (base == NULL || hard_invariants(base, &results[HARD_INVARIANTS]) < 0 ||
            semantic_outcome(base, &results[SEMANTIC_OUTCOME]) < 0 ||
            trajectory_restraint(base, &results[TRAJECTORY_RESTRAINT]) < 0 ||
            trace_completeness_v1(base, &results[TRACE_COMPLETENESS]) < 0 ||
            quality_efficiency(base, &results[QUALITY_EFFICIENCY]) < 0 ||
            score_checks(field(observation, s_lifecycle), &results[LIFECYCLE_INTEGRITY]) < 0 ||
            score_checks(field(observation, s_continuation), &results[CONTINUATION_INTEGRITY]) <
                0 ||
            score_checks(field(observation, s_presentation), &results[PRESENTATION_FIDELITY]) <
                0) {
            goto done;
        }
        if (is_text(classification, "candidate_failure")) {
            results[LIFECYCLE_INTEGRITY].score = 0.0;
            if (add_reason(results[LIFECYCLE_INTEGRITY].reasons,
                           PyUnicode_FromString("candidate execution failed")) < 0) {
                goto done;
            }
        }
        TraceExpectation expectation = {
            PyTuple_GET_ITEM(plan, PLAN_TRACE_PRESENT) == Py_True,
            PyUnicode_AsUTF8(PyTuple_GET_ITEM(plan, PLAN_CAPTURE)),
            PyTuple_GET_ITEM(plan, PLAN_DISPOSITIONS),
            PyTuple_GET_ITEM(plan, PLAN_LINEAGE),
        };
        Result lineage = {0.0, PyList_New(0)};
        if (expectation.capture == NULL || lineage.reasons == NULL ||
            trace_lineage(field(observation, s_traceLineage), &expectation, &lineage) < 0) {
            Py_XDECREF(lineage.reasons);
            goto done;
        }
        Result *trace = &results[TRACE_COMPLETENESS];
        if (lineage.score < trace->score) {
            trace->score = lineage.score;
        }
        Py_ssize_t end = PyList_GET_SIZE(trace->reasons);
        int joined = PyList_SetSlice(trace->reasons, end, end, lineage.reasons);
        Py_DECREF(lineage.reasons);
        if (joined < 0) {
            goto done;
        }
        double weighted_sum = 0.0, weight_total = 0.0;
        for (int index = 0; index < DIMENSION_COUNT; index++) {
            PyObject *entry = PyTuple_GET_ITEM(policy, index);
            int gate = PyTuple_GET_ITEM(entry, 1) == Py_True;
            double score = results[index].score;
            if (!gate) {
                double weight = PyFloat_AS_DOUBLE(PyTuple_GET_ITEM(entry, 2));
                weighted_sum += score * weight;
                weight_total += weight;
            }
            int passed = score >= PyFloat_AS_DOUBLE(PyTuple_GET_ITEM(entry, 4));
            all_passed = all_passed && passed;
            if (gate) {
                gate_passed = gate_passed && passed;
            }
            if ((index && APPEND_LITERAL(out, ",") < 0) ||
                append_dimension(out, entry, &results[index], passed) < 0) {
                goto done;
            }
        }
        double overall = (!gate_passed || weight_total == 0.0) ? 0.0 : weighted_sum / weight_total;
        if (APPEND_LITERAL(out, "},\"overall\":{\"score\":") < 0 ||
            append_double(out, overall) < 0 ||
            (gate_passed ? APPEND_LITERAL(out, ",\"gatePassed\":true,\"passed\":")
                         : APPEND_LITERAL(out, ",\"gatePassed\":false,\"passed\":")) < 0 ||
            ((gate_passed && all_passed) ? APPEND_LITERAL(out, "true}}\n")
                                         : APPEND_LITERAL(out, "false}}\n")) < 0) {
            goto done;
        }
        audit = audit_failed(observation, plan);
        if (audit < 0) {
            goto done;
        }
    }
    if (!PyErr_Occurred()) {
        counts->scored++;
        counts->unscoreable += unscoreable;
        counts->gate_failures += !unscoreable && !gate_passed;
        counts->audit_failed += audit;
        status = 1;
    }
done:
    for (int index = 0; index < DIMENSION_COUNT; index++) {
        Py_XDECREF(results[index].reasons);
    }
    return status != 1 && PyErr_Occurred() ? -1 : status;
}

/* ------------------------------------------------------------------------------------------ */
/* Blocks of JSON Lines.                                                                       */

static PyObject *decode;            /* recognize's typed msgspec decoder: .decode */
static PyObject *encode_into;       /* its encoder: .encode_into */
static PyObject *reencoded;         /* the bytearray encode_into writes */
static PyObject *declinable;        /* exceptions that mean "not plain": a tuple of classes */
static PyObject *identifier_secret; /* validation.identifier_secret */
static PyObject *reference_secret;  /* secrets.matches_reference_secret */
static PyObject *clean_ids;         /* ids identifier_secret found clean */

/* When `error` is one of the exceptions that only mean "not plain", clear it and return 0. */
static int
declined(void)
{
    if (PyErr_ExceptionMatches(declinable)) {
        PyErr_Clear();
        return 0;
    }
    return -1;
}

/* JavaScript's String.prototype.trim() whitespace. */
static int
is_js_space(Py_UCS4 c)
{
    return c == ' ' || (c >= 0x09 && c <= 0x0D) || c == 0xA0 || c == 0x1680 ||
           (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F ||
           c == 0x205F || c == 0x3000 || c == 0xFEFF;
}

static int
is_blank(PyObject *text)
{
    for (Py_ssize_t index = 0; index < PyUnicode_GET_LENGTH(text); index++) {
        if (!is_js_space(PyUnicode_READ_CHAR(text, index))) {
            return 0;
        }
    }
    return 1;
}

/* 1 when the id is not secret-shaped (identifier_secret, remembered), 0 when it is, -1 error. */
static int
clean_id(PyObject *id)
{
    int known = PySet_Contains(clean_ids, id);
    if (known != 0) {
        return known;
    }
    PyObject *pattern = PyObject_CallOneArg(identifier_secret, id);
    if (pattern == NULL) {
        return -1;
    }
    int clean = pattern == Py_None;
    Py_DECREF(pattern);
    if (clean) {
        if (PySet_GET_SIZE(clean_ids) >= CACHE_LIMIT && PySet_Clear(clean_ids) < 0) {
            return -1;
        }
        if (PySet_Add(clean_ids, id) < 0) {
            return -1;
        }
    }
    return clean;
}

/* SCORING.md 1.2, 1.3 and 1.5 and the secret-shaped id rule (1.4 is checks_valid): 1 when the
   observation passes, 0 when the Python path must decide, -1 on error. */
static int
passes_contract(PyObject *observation)
{
    PyObject *candidate = field(observation, s_candidateId);
    PyObject *provider = field(observation, s_provider);
    PyObject *classification = field(observation, s_classification);
    if (candidate == NULL || provider == NULL || classification == NULL ||
        !PyUnicode_CheckExact(candidate) || !PyUnicode_CheckExact(provider)) {
        return PyErr_Occurred() ? -1 : 0;
    }
    if (is_blank(candidate)) {
        return 0;
    }
    int clean = clean_id(candidate);
    if (clean == 1) {
        clean = clean_id(provider);
    }
    if (clean != 1) {
        return clean;
    }
    PyObject *failure = field(observation, s_failure);
    if (failure == NULL) {
        if (PyErr_Occurred()) {
            return -1;
        }
        return !(is_text(classification, "infrastructure_failure") ||
                 is_text(classification, "skipped"));
    }
    PyObject *message = field(failure, s_message);
    if (message == NULL) {
        return PyErr_Occurred() ? -1 : 0;
    }
    PyObject *secret = PyObject_CallOneArg(reference_secret, message);
    if (secret == NULL) {
        return -1;
    }
    int shaped = PyObject_IsTrue(secret);
    Py_DECREF(secret);
    return shaped < 0 ? -1 : !shaped;
}

/* One line: scored into `out` (1), declined (0), or an error (-1). */
static int
score_raw_line(Buffer *out, const char *start, Py_ssize_t length, PyObject *plans,
               PyObject *policy, PyObject *heads, Counts *counts)
{
    PyObject *raw = PyMemoryView_FromMemory((char *)start, length, PyBUF_READ);
    if (raw == NULL) {
        return -1;
    }
    PyObject *observation = PyObject_CallOneArg(decode, raw);
    Py_DECREF(raw);
    if (observation == NULL) {
        return declined();
    }
    int status = 0;
    PyObject *written = PyObject_CallFunctionObjArgs(encode_into, observation, reencoded, NULL);
    if (written == NULL) {
        status = declined();
        goto done;
    }
    Py_DECREF(written);
    /* Plain: re-encoding gives back exactly the line (see recognize.NOT_PLAIN_ERRORS). */
    if (PyByteArray_GET_SIZE(reencoded) != length ||
        memcmp(PyByteArray_AS_STRING(reencoded), start, (size_t)length) != 0) {
        goto done;
    }
    PyObject *case_id = field(observation, s_caseId);
    PyObject *plan = case_id != NULL ? PyDict_GetItemWithError(plans, case_id) : NULL;
    PyObject *head = plan != NULL ? PyDict_GetItemWithError(heads, case_id) : NULL;
    if (head == NULL || !PyUnicode_CheckExact(head) || !PyTuple_CheckExact(plan) ||
        PyTuple_GET_SIZE(plan) != PLAN_SIZE) {
        status = PyErr_Occurred() ? -1 : 0;
        goto done;
    }
    status = passes_contract(observation);
    if (status == 1) {
        Py_ssize_t mark = out->size;
        status = score_record(out, observation, plan, policy, head, counts);
        if (status != 1) {
            out->size = mark;
        }
    }
done:
    Py_DECREF(observation);
    if (status < 0 && PyErr_Occurred() &&
        (PyErr_ExceptionMatches(PyExc_AttributeError) || PyErr_ExceptionMatches(PyExc_TypeError) ||
         PyErr_ExceptionMatches(PyExc_ValueError))) {
        /* Not the shape the C scorer knows after all: the Python path decides. */
        PyErr_Clear();
        status = 0;
    }
    return status;
}

/* Ends the current piece of text: appends it to `pieces` as a str and empties `out`. */
static int
flush(Buffer *out, PyObject *pieces)
{
    if (out->size == 0) {
        return 0;
    }
    PyObject *text = PyUnicode_DecodeUTF8(out->data, out->size, NULL);
    if (text == NULL) {
        return -1;
    }
    out->size = 0;
    int status = PyList_Append(pieces, text);
    Py_DECREF(text);
    return status;
}

static int
is_ascii_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

static PyObject *
score_block(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 5) {
        PyErr_SetString(PyExc_TypeError,
                        "score_block(block, first_line, case_plans, policy_plan, heads)");
        return NULL;
    }
    PyObject *block = args[0], *plans = args[2], *policy = args[3], *heads = args[4];
    Py_ssize_t first_line = PyLong_AsSsize_t(args[1]);
    if (first_line == -1 && PyErr_Occurred()) {
        return NULL;
    }
    if (decode == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "configure() first");
        return NULL;
    }
    if (!PyBytes_CheckExact(block) || !PyDict_CheckExact(plans) || !PyDict_CheckExact(heads) ||
        !PyTuple_CheckExact(policy) || PyTuple_GET_SIZE(policy) != DIMENSION_COUNT) {
        PyErr_SetString(PyExc_TypeError, "malformed arguments");
        return NULL;
    }
    PyObject *pieces = PyList_New(0);
    if (pieces == NULL) {
        return NULL;
    }
    Buffer out;
    buffer_init(&out);
    Counts counts = {0, 0, 0, 0};
    const char *data = PyBytes_AS_STRING(block);
    Py_ssize_t size = PyBytes_GET_SIZE(block), start = 0, number = first_line;
    int failed = 0;
    /* The lines io.numbered_lines yields: split at "\n", a BOM removed from a file's first
       line, carriage returns before the end removed, blank lines skipped. */
    while (start <= size && !failed) {
        const char *found = memchr(data + start, '\n', (size_t)(size - start));
        Py_ssize_t stop = found ? found - data : size;
        Py_ssize_t begin = start, end = stop;
        if (number == 1 && start == 0 && end - begin >= 3 && memcmp(data, "\xef\xbb\xbf", 3) == 0) {
            begin += 3;
        }
        while (end > begin && data[end - 1] == '\r') {
            end--;
        }
        int blank = 1;
        for (Py_ssize_t index = begin; index < end && blank; index++) {
            blank = is_ascii_space(data[index]);
        }
        if (!blank) {
            int status = score_raw_line(&out, data + begin, end - begin, plans, policy, heads,
                                        &counts);
            if (status < 0) {
                failed = 1;
            }
            else if (status == 0) {
                PyObject *line = PyBytes_FromStringAndSize(data + begin, end - begin);
                PyObject *entry = line ? Py_BuildValue("(nN)", number, line) : NULL;
                if (entry == NULL || flush(&out, pieces) < 0 || PyList_Append(pieces, entry) < 0) {
                    failed = 1;
                }
                Py_XDECREF(entry);
            }
        }
        start = stop + 1;
        number++;
    }
    if (!failed && flush(&out, pieces) < 0) {
        failed = 1;
    }
    buffer_free(&out);
    if (failed) {
        Py_DECREF(pieces);
        return NULL;
    }
    return Py_BuildValue("(N(LLLL))", pieces, counts.scored, counts.gate_failures,
                         counts.unscoreable, counts.audit_failed);
}

/* The newlines in data[:end], counted with memchr (bytes.count looks at one byte at a time). */
static PyObject *
count_newlines(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    Py_ssize_t end;
    if (nargs != 2 || (end = PyLong_AsSsize_t(args[1])) < 0) {
        if (!PyErr_Occurred()) {
            PyErr_SetString(PyExc_TypeError, "count_newlines(data, end) with end >= 0");
        }
        return NULL;
    }
    Py_buffer view;
    if (PyObject_GetBuffer(args[0], &view, PyBUF_SIMPLE) < 0) {
        return NULL;
    }
    const char *data = view.buf;
    const char *stop = data + (end < view.len ? end : view.len);
    Py_ssize_t count = 0;
    for (const char *at = data; at < stop; at++) {
        at = memchr(at, '\n', (size_t)(stop - at));
        if (at == NULL) {
            break;
        }
        count++;
    }
    PyBuffer_Release(&view);
    return PyLong_FromSsize_t(count);
}

/* ------------------------------------------------------------------------------------------ */

static PyObject *
configure(PyObject *module, PyObject *args)
{
    PyObject *unset, *reason, *string, *number, *decoder, *encoder, *errors, *secret_id,
        *secret_reference;
    if (!PyArg_ParseTuple(args, "OOOOOOOOO:configure", &unset, &reason, &string, &number,
                          &decoder, &encoder, &errors, &secret_id, &secret_reference)) {
        return NULL;
    }
    Py_XSETREF(UNSET, Py_NewRef(unset));
    Py_XSETREF(reason_json, Py_NewRef(reason));
    Py_XSETREF(string_json, Py_NewRef(string));
    Py_XSETREF(number_text, Py_NewRef(number));
    Py_XSETREF(declinable, Py_NewRef(errors));
    Py_XSETREF(identifier_secret, Py_NewRef(secret_id));
    Py_XSETREF(reference_secret, Py_NewRef(secret_reference));
    Py_XSETREF(decode, PyObject_GetAttrString(decoder, "decode"));
    Py_XSETREF(encode_into, PyObject_GetAttrString(encoder, "encode_into"));
    /* New helpers, new answers. */
    Py_XSETREF(reencoded, PyByteArray_FromStringAndSize(NULL, 0));
    Py_XSETREF(reason_cache, PyDict_New());
    Py_XSETREF(string_cache, PyDict_New());
    Py_XSETREF(clean_ids, PySet_New(NULL));
    if (decode == NULL || encode_into == NULL || reencoded == NULL || reason_cache == NULL ||
        string_cache == NULL || clean_ids == NULL) {
        return NULL;
    }
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"configure", configure, METH_VARARGS,
     "configure(UNSET, reason_json, string_json, number_text, decoder, encoder, declinable,"
     " identifier_secret, matches_reference_secret): the Python helpers."},
    {"score_block", (PyCFunction)(void (*)(void))score_block, METH_FASTCALL,
     "score_block(block, first_line, case_plans, policy_plan, heads) -> (pieces, (scored,"
     " gate_failures, unscoreable, audit_failed)): pieces are str (scorecard lines, each ending"
     " in a newline) and (line_number, raw_line) of the lines the Python path must decide."},
    {"count_newlines", (PyCFunction)(void (*)(void))count_newlines, METH_FASTCALL,
     "count_newlines(data, end) -> the number of b'\\n' in data[:end]."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_definition = {
    PyModuleDef_HEAD_INIT, "_fastscore", "The scoring hot path in C (see fastpath.py).", -1,
    methods,
};

PyMODINIT_FUNC
PyInit__fastscore(void)
{
#define INTERN(name)                                                                             \
    if ((s_##name = PyUnicode_InternFromString(#name)) == NULL) {                               \
        return NULL;                                                                             \
    }
    NAMES(INTERN)
#undef INTERN
    if ((k_semantic_tool = PyUnicode_InternFromString("semantic_tool")) == NULL ||
        (k_schema = PyUnicode_InternFromString("schema")) == NULL ||
        (k_schemaVersion = PyUnicode_InternFromString("schemaVersion")) == NULL ||
        (k_phase = PyUnicode_InternFromString("phase")) == NULL ||
        (k_operationReceiptId = PyUnicode_InternFromString("operationReceiptId")) == NULL ||
        (k_operationId = PyUnicode_InternFromString("operationId")) == NULL ||
        (k_stopReason = PyUnicode_InternFromString("stopReason")) == NULL ||
        (k_receiptId = PyUnicode_InternFromString("receiptId")) == NULL ||
        (k_decisionId = PyUnicode_InternFromString("decisionId")) == NULL ||
        (comma_space = PyUnicode_InternFromString(", ")) == NULL) {
        return NULL;
    }
    return PyModule_Create(&module_definition);
}
