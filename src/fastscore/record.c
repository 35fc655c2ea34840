/* The scored record of one recognised observation (`--format records`, core/_record.py): the
   observation's facts, its audit with the findings that did not pass (core/_audit.py), and the
   scorecard line that line.c wrote.

   Every constant text comes from fast/_records.py, made by the Python definitions (a finding's
   to_json with a hole where its evidence goes); this file decides which findings a line has,
   in audit_observation's order, and writes the evidence into the holes. Anything it does not
   know the shape of declines the line (0), and the general path writes it. */

#include "fastscore.h"

/* The kinds of check (fast/_records.py). */
enum {
    CHECK_EQUAL,
    CHECK_AT_MOST,
    CHECK_ATTEMPTS,
    CHECK_MARKERS,
    CHECK_MEMBERS,
    CHECK_FORBIDDEN,
    CHECK_PROVIDER
};

/* What a check reads (fast/_records.py, _WHERE). */
enum {
    WHERE_ISSUE_STATUS,
    WHERE_RUN_STATUS,
    WHERE_SEMANTIC_DISPOSITION,
    WHERE_RUNS,
    WHERE_RECOVERY_OWNER,
    WHERE_COMMENT_COUNT,
    WHERE_RESPONSE_SOURCE,
    WHERE_DIGEST_VERIFIED,
    WHERE_ORDERED,
    WHERE_EVENTS,
    WHERE_ACTIVITY_FAMILIES,
    WHERE_ARTIFACT_DIGESTS,
    WHERE_OPERATION_IDS
};

typedef struct {
    long passed, failed, not_observed;
    int any; /* a finding written: the next one needs a comma */
} Audit;

/* The evidence a check reads, borrowed: NULL when the observation lacks it (an error set when
   it could not be read). */
static PyObject *
evidence(PyObject *observation, long where)
{
    PyObject *parent;
    PyObject *name;
    switch (where) {
    case WHERE_ISSUE_STATUS: parent = field(observation, s_lifecycle); name = s_issueStatus; break;
    case WHERE_RUN_STATUS: parent = field(observation, s_lifecycle); name = s_runStatus; break;
    case WHERE_SEMANTIC_DISPOSITION:
        parent = field(observation, s_lifecycle);
        name = s_semanticDisposition;
        break;
    case WHERE_RUNS: parent = field(observation, s_lifecycle); name = s_runs; break;
    case WHERE_RECOVERY_OWNER:
        parent = field(observation, s_lifecycle);
        name = s_recoveryOwner;
        break;
    case WHERE_COMMENT_COUNT:
        parent = field(observation, s_presentation);
        name = s_commentCount;
        break;
    case WHERE_RESPONSE_SOURCE:
        parent = field(observation, s_presentation);
        name = s_responseSource;
        break;
    case WHERE_DIGEST_VERIFIED:
        parent = field(observation, s_traceLineage);
        name = s_digestVerified;
        break;
    case WHERE_ORDERED: parent = field(observation, s_traceLineage); name = s_ordered; break;
    case WHERE_EVENTS: return field(observation, s_observedPrpEventTypes);
    case WHERE_ACTIVITY_FAMILIES:
        parent = field(observation, s_presentation);
        name = s_activityFamilies;
        break;
    case WHERE_ARTIFACT_DIGESTS: return field(observation, s_artifactDigests);
    case WHERE_OPERATION_IDS: parent = field(observation, s_base); name = s_observedCalls; break;
    default: PyErr_SetString(PyExc_ValueError, "unknown evidence"); return NULL;
    }
    return parent == NULL ? NULL : field(parent, name);
}

/* A number of an observation as jsformat.format_js_number spells it (number_spelling, without
   making a str for the usual integer or double). */
static int
append_number(Buffer *out, PyObject *number)
{
    if (PyFloat_CheckExact(number)) {
        return append_measure(out, PyFloat_AS_DOUBLE(number));
    }
    if (PyLong_CheckExact(number)) {
        int overflow;
        long long value = PyLong_AsLongLongAndOverflow(number, &overflow);
        if (value == -1 && PyErr_Occurred()) {
            return -1;
        }
        if (!overflow && -(1LL << 53) <= value && value <= (1LL << 53)) {
            return append_integer(out, value);
        }
    }
    PyObject *text = number_spelling(number);
    int status = text == NULL ? -1 : append_str(out, text);
    Py_XDECREF(text);
    return status;
}

/* An observed value as Finding.to_json writes it: text redacted and quoted (reason_json), a
   list of text likewise, a number as JavaScript spells it. 1 when written, 0 when it is not a
   value this file knows (the line is declined), -1 on error. */
static int
append_evidence(Buffer *out, PyObject *value)
{
    if (PyUnicode_CheckExact(value)) {
        return append_cached(out, reason_cache, reason_json, value) < 0 ? -1 : 1;
    }
    if (PyBool_Check(value)) {
        return (value == Py_True ? APPEND_LITERAL(out, "true") : APPEND_LITERAL(out, "false")) < 0
                   ? -1
                   : 1;
    }
    if (PyLong_CheckExact(value) || PyFloat_CheckExact(value)) {
        return append_number(out, value) < 0 ? -1 : 1;
    }
    if (PyList_CheckExact(value)) {
        if (APPEND_LITERAL(out, "[") < 0) {
            return -1;
        }
        for (Py_ssize_t index = 0; index < PyList_GET_SIZE(value); index++) {
            PyObject *item = PyList_GET_ITEM(value, index);
            if (!PyUnicode_CheckExact(item)) {
                return 0;
            }
            if ((index && APPEND_LITERAL(out, ",") < 0) ||
                append_cached(out, reason_cache, reason_json, item) < 0) {
                return -1;
            }
        }
        return APPEND_LITERAL(out, "]") < 0 ? -1 : 1;
    }
    return 0;
}

/* Starts a finding's text: a comma after the one before. */
static int
next_finding(Buffer *out, Audit *audit)
{
    if (audit->any && APPEND_LITERAL(out, ",") < 0) {
        return -1;
    }
    audit->any = 1;
    return 0;
}

/* A failed finding: head, evidence, tail. */
static int
failed_with(Buffer *out, Audit *audit, PyObject *head, PyObject *value, PyObject *tail)
{
    audit->failed++;
    if (next_finding(out, audit) < 0 || append_str(out, head) < 0) {
        return -1;
    }
    int written = append_evidence(out, value);
    return written != 1 ? written : (append_str(out, tail) < 0 ? -1 : 1);
}

/* A whole finding's text. */
static int
constant_finding(Buffer *out, Audit *audit, PyObject *text)
{
    return next_finding(out, audit) < 0 || append_str(out, text) < 0 ? -1 : 1;
}

static int
append_index(Buffer *out, Py_ssize_t index)
{
    return append_integer(out, (long long)index);
}

/* _equal (CHECK_EQUAL: actual == expected) and _at_most (CHECK_AT_MOST: actual <= bound):
   (kind, where, expected, failed head, failed tail, not observed). */
static int
compared(Buffer *out, Audit *audit, PyObject *observation, PyObject *check, int operation)
{
    PyObject *actual = evidence(observation, PyLong_AsLong(PyTuple_GET_ITEM(check, 1)));
    if (actual == NULL || actual == Py_None) {
        if (PyErr_Occurred()) {
            return -1;
        }
        audit->not_observed++;
        return constant_finding(out, audit, PyTuple_GET_ITEM(check, 5));
    }
    int holds = PyObject_RichCompareBool(actual, PyTuple_GET_ITEM(check, 2), operation);
    if (holds != 0) {
        audit->passed += holds == 1;
        return holds;
    }
    return failed_with(out, audit, PyTuple_GET_ITEM(check, 3), actual, PyTuple_GET_ITEM(check, 4));
}

/* maxAttempts: (kind, bound, head with the lifecycle's pointer, head with the metrics', tail). */
static int
attempts(Buffer *out, Audit *audit, PyObject *observation, PyObject *check)
{
    PyObject *lifecycle = field(observation, s_lifecycle);
    PyObject *metrics = field(observation, s_metrics);
    if (lifecycle == NULL || metrics == NULL) {
        return PyErr_Occurred() ? -1 : 0;
    }
    PyObject *head = PyTuple_GET_ITEM(check, 2);
    PyObject *actual = field(lifecycle, s_attempts);
    if (actual == NULL || actual == Py_None) {
        head = PyTuple_GET_ITEM(check, 3);
        actual = PyErr_Occurred() ? NULL : field(metrics, s_attempts);
    }
    if (actual == NULL || actual == Py_None) {
        return PyErr_Occurred() ? -1 : 0;
    }
    int holds = PyObject_RichCompareBool(actual, PyTuple_GET_ITEM(check, 1), Py_LE);
    if (holds != 0) {
        audit->passed += holds == 1;
        return holds;
    }
    return failed_with(out, audit, head, actual, PyTuple_GET_ITEM(check, 4));
}

/* The first index at or after `start` where `items` holds `value`, -1 if none, -2 on error. */
static Py_ssize_t
find_from(PyObject *items, PyObject *value, Py_ssize_t start)
{
    for (Py_ssize_t index = start; index < PyList_GET_SIZE(items); index++) {
        int same = PyObject_RichCompareBool(PyList_GET_ITEM(items, index), value, Py_EQ);
        if (same < 0) {
            return -2;
        }
        if (same) {
            return index;
        }
    }
    return -1;
}

/* orderedMarkers: (kind, required, not observed, per marker (out-of-order head, middle, tail,
   missing head, tail)). */
static int
markers(Buffer *out, Audit *audit, PyObject *observation, PyObject *check)
{
    PyObject *presentation = field(observation, s_presentation);
    PyObject *shown = presentation == NULL ? NULL : field(presentation, s_markers);
    if (shown == NULL || shown == Py_None) {
        if (PyErr_Occurred()) {
            return -1;
        }
        audit->not_observed++;
        return constant_finding(out, audit, PyTuple_GET_ITEM(check, 2));
    }
    if (!is_list(shown)) {
        return 0;
    }
    PyObject *required = PyTuple_GET_ITEM(check, 1);
    Py_ssize_t position = 0;
    for (Py_ssize_t index = 0; index < PyTuple_GET_SIZE(required); index++) {
        PyObject *marker = PyTuple_GET_ITEM(required, index);
        Py_ssize_t later = find_from(shown, marker, position);
        if (later == -2) {
            return -1;
        }
        if (later >= 0) {
            position = later + 1;
            continue;
        }
        PyObject *texts = PyTuple_GET_ITEM(PyTuple_GET_ITEM(check, 3), index);
        Py_ssize_t first = find_from(shown, marker, 0);
        if (first == -2) {
            return -1;
        }
        if (first < 0) {
            return failed_with(out, audit, PyTuple_GET_ITEM(texts, 3), shown,
                               PyTuple_GET_ITEM(texts, 4));
        }
        audit->failed++;
        if (next_finding(out, audit) < 0 || append_str(out, PyTuple_GET_ITEM(texts, 0)) < 0 ||
            append_index(out, first) < 0 || append_str(out, PyTuple_GET_ITEM(texts, 1)) < 0) {
            return -1;
        }
        int written = append_evidence(out, shown);
        return written != 1 ? written : (append_str(out, PyTuple_GET_ITEM(texts, 2)) < 0 ? -1 : 1);
    }
    audit->passed++;
    return 1;
}

/* Required items: (kind, where, required, failed texts, not observed texts). */
static int
members(Buffer *out, Audit *audit, PyObject *observation, PyObject *check)
{
    PyObject *observed = evidence(observation, PyLong_AsLong(PyTuple_GET_ITEM(check, 1)));
    PyObject *required = PyTuple_GET_ITEM(check, 2);
    if (observed == NULL || observed == Py_None) {
        if (PyErr_Occurred()) {
            return -1;
        }
        for (Py_ssize_t index = 0; index < PyTuple_GET_SIZE(required); index++) {
            audit->not_observed++;
            if (constant_finding(out, audit, PyTuple_GET_ITEM(PyTuple_GET_ITEM(check, 4), index)) <
                0) {
                return -1;
            }
        }
        return 1;
    }
    if (!is_list(observed)) {
        return 0;
    }
    for (Py_ssize_t index = 0; index < PyTuple_GET_SIZE(required); index++) {
        int found = PySequence_Contains(observed, PyTuple_GET_ITEM(required, index));
        if (found < 0) {
            return -1;
        }
        if (found) {
            audit->passed++;
            continue;
        }
        audit->failed++;
        if (constant_finding(out, audit, PyTuple_GET_ITEM(PyTuple_GET_ITEM(check, 3), index)) < 0) {
            return -1;
        }
    }
    return 1;
}

/* Forbidden event types: (kind, forbidden, per type (head, tail)); each occurrence fails. */
static int
forbidden(Buffer *out, Audit *audit, PyObject *observation, PyObject *check)
{
    PyObject *observed = field(observation, s_observedPrpEventTypes);
    if (!is_list(observed)) {
        return PyErr_Occurred() ? -1 : 0;
    }
    PyObject *types = PyTuple_GET_ITEM(check, 1);
    for (Py_ssize_t index = 0; index < PyTuple_GET_SIZE(types); index++) {
        PyObject *texts = PyTuple_GET_ITEM(PyTuple_GET_ITEM(check, 2), index);
        int seen = 0;
        for (Py_ssize_t at = find_from(observed, PyTuple_GET_ITEM(types, index), 0); at != -1;
             at = find_from(observed, PyTuple_GET_ITEM(types, index), at + 1)) {
            if (at == -2) {
                return -1;
            }
            seen = 1;
            audit->failed++;
            if (next_finding(out, audit) < 0 || append_str(out, PyTuple_GET_ITEM(texts, 0)) < 0 ||
                append_index(out, at) < 0 || append_str(out, PyTuple_GET_ITEM(texts, 1)) < 0) {
                return -1;
            }
        }
        audit->passed += !seen;
    }
    return 1;
}

/* The case's providers: (kind, providers, failed head, failed tail). */
static int
provider_check(Buffer *out, Audit *audit, PyObject *observation, PyObject *check)
{
    PyObject *provider = field(observation, s_provider);
    if (provider == NULL) {
        return PyErr_Occurred() ? -1 : 0;
    }
    int member = PySequence_Contains(PyTuple_GET_ITEM(check, 1), provider);
    if (member != 0) {
        audit->passed += member == 1;
        return member < 0 ? -1 : 1;
    }
    return failed_with(out, audit, PyTuple_GET_ITEM(check, 2), provider,
                       PyTuple_GET_ITEM(check, 3));
}

/* The findings of `checks` (record_checks of the case) that did not pass, written into `out`
   and counted in `audit`: 1, 0 (declined) or -1. */
static int
audit_record(Buffer *out, Audit *audit, PyObject *observation, PyObject *checks)
{
    for (Py_ssize_t index = 0; index < PyTuple_GET_SIZE(checks); index++) {
        PyObject *check = PyTuple_GET_ITEM(checks, index);
        int status;
        switch (PyLong_AsLong(PyTuple_GET_ITEM(check, 0))) {
        case CHECK_EQUAL: status = compared(out, audit, observation, check, Py_EQ); break;
        case CHECK_AT_MOST: status = compared(out, audit, observation, check, Py_LE); break;
        case CHECK_ATTEMPTS: status = attempts(out, audit, observation, check); break;
        case CHECK_MARKERS: status = markers(out, audit, observation, check); break;
        case CHECK_MEMBERS: status = members(out, audit, observation, check); break;
        case CHECK_FORBIDDEN: status = forbidden(out, audit, observation, check); break;
        case CHECK_PROVIDER: status = provider_check(out, audit, observation, check); break;
        default: PyErr_SetString(PyExc_ValueError, "unknown check"); return -1;
        }
        if (status != 1) {
            return status;
        }
    }
    return 1;
}

/* A metric (a count or a measure) as a record holds it; 0 for a value it cannot hold. */
static int
append_metric(Buffer *out, const char *key, Py_ssize_t key_length, PyObject *value, int *first)
{
    if (value == NULL) {
        return PyErr_Occurred() ? -1 : 1;
    }
    if (!PyLong_CheckExact(value) && !PyFloat_CheckExact(value)) {
        return 0;
    }
    if ((!*first && APPEND_LITERAL(out, ",") < 0) || append(out, key, key_length) < 0) {
        return -1;
    }
    *first = 0;
    return append_number(out, value) < 0 ? -1 : 1;
}

/* The observation's metrics (METRIC_KEYS, in order). */
static int
append_metrics(Buffer *out, PyObject *metrics)
{
#define METRIC(name)                                                                             \
    status = append_metric(out, "\"" #name "\":", (Py_ssize_t)sizeof("\"" #name "\":") - 1,      \
                           field(metrics, s_##name), &first);                                    \
    if (status != 1) {                                                                           \
        return status;                                                                           \
    }
    int first = 1, status;
    if (APPEND_LITERAL(out, "{") < 0) {
        return -1;
    }
    METRIC(attempts)
    METRIC(toolCount)
    METRIC(timeToFirstVisibleProgressMs)
    METRIC(settlementMs)
    METRIC(totalTokens)
    METRIC(costUsd)
#undef METRIC
    return APPEND_LITERAL(out, "}") < 0 ? -1 : 1;
}

/* record_failure: code and message redacted. */
static int
append_failure(Buffer *out, PyObject *failure)
{
    if (failure == NULL) {
        return PyErr_Occurred() ? -1 : (APPEND_LITERAL(out, "null") < 0 ? -1 : 1);
    }
    PyObject *code = field(failure, s_code), *category = field(failure, s_category);
    PyObject *retryable = field(failure, s_retryable), *message = field(failure, s_message);
    if (code == NULL || category == NULL || retryable == NULL || message == NULL ||
        !PyUnicode_CheckExact(code) || !PyUnicode_CheckExact(category) ||
        !PyBool_Check(retryable) || !PyUnicode_CheckExact(message)) {
        return PyErr_Occurred() ? -1 : 0;
    }
    if (APPEND_LITERAL(out, "{\"code\":") < 0 ||
        append_cached(out, reason_cache, reason_json, code) < 0 ||
        APPEND_LITERAL(out, ",\"category\":") < 0 ||
        append_cached(out, string_cache, string_json, category) < 0 ||
        (retryable == Py_True ? APPEND_LITERAL(out, ",\"retryable\":true,\"message\":")
                              : APPEND_LITERAL(out, ",\"retryable\":false,\"message\":")) < 0 ||
        append_cached(out, reason_cache, reason_json, message) < 0 ||
        APPEND_LITERAL(out, "}") < 0) {
        return -1;
    }
    return 1;
}

static int
append_count(Buffer *out, const char *key, long count)
{
    return append(out, key, (Py_ssize_t)strlen(key)) < 0 ? -1 : append_integer(out, count);
}

int
write_record(RecordWriter *writer, PyObject *observation, PyObject *case_id, Card *card,
             const char *scorecard, Py_ssize_t scorecard_length, Py_ssize_t number)
{
    Buffer *out = writer->out;
    PyObject *head = PyDict_GetItemWithError(writer->heads, case_id);
    PyObject *checks = head ? PyDict_GetItemWithError(writer->checks, case_id) : NULL;
    PyObject *candidate = field(observation, s_candidateId);
    PyObject *provider = field(observation, s_provider);
    PyObject *classification = field(observation, s_classification);
    PyObject *metrics = field(observation, s_metrics);
    if (head == NULL || checks == NULL || candidate == NULL || provider == NULL ||
        classification == NULL || metrics == NULL || !PyUnicode_CheckExact(head) ||
        !PyTuple_CheckExact(checks) || !PyUnicode_CheckExact(candidate) ||
        !PyUnicode_CheckExact(provider) || !PyUnicode_CheckExact(classification)) {
        return PyErr_Occurred() ? -1 : 0;
    }
    Audit audit = {0, 0, 0, 0};
    Buffer *findings = &writer->findings;
    findings->size = 0;
    if (!card->unscoreable) { /* an unscoreable run is not audited */
        int audited = audit_record(findings, &audit, observation, checks);
        if (audited != 1) {
            return audited;
        }
    }
    PyObject *labels = PyDict_GetItemWithError(writer->labels, candidate);
    if (labels == NULL && PyErr_Occurred()) {
        return -1;
    }
    int gate = card->gate_passed && !(writer->audit_gates && audit.failed > 0);
    Py_ssize_t mark = out->size;
    int status = -1;
    if (append_str(out, head) < 0 || append_cached(out, string_cache, string_json, candidate) < 0 ||
        APPEND_LITERAL(out, ",\"provider\":") < 0 ||
        append_cached(out, string_cache, string_json, provider) < 0 ||
        APPEND_LITERAL(out, ",") < 0 ||
        (labels != NULL ? append_str(out, labels)
                        : APPEND_LITERAL(out, "\"model\":null,\"tier\":null,")) < 0 ||
        APPEND_LITERAL(out, "\"repetition\":0,\"classification\":\"") < 0 ||
        append_str(out, classification) < 0 || APPEND_LITERAL(out, "\",\"metrics\":") < 0) {
        goto done;
    }
    status = append_metrics(out, metrics);
    if (status != 1) {
        goto done;
    }
    status = -1;
    if (APPEND_LITERAL(out, ",\"failure\":") < 0) {
        goto done;
    }
    status = append_failure(out, field(observation, s_failure));
    if (status != 1) {
        goto done;
    }
    status = -1;
    if (APPEND_LITERAL(out, ",") < 0 || append_str(out, writer->source_head) < 0 ||
        append_index(out, writer->array ? number - 1 : number) < 0 ||
        (writer->array ? APPEND_LITERAL(out, "},\"gatePassed\":")
                       : APPEND_LITERAL(out, ",\"index\":null},\"gatePassed\":")) < 0 ||
        (card->unscoreable ? APPEND_LITERAL(out, "null")
                           : gate ? APPEND_LITERAL(out, "true") : APPEND_LITERAL(out, "false")) < 0 ||
        append_count(out, ",\"audit\":{\"passed\":", audit.passed) < 0 ||
        append_count(out, ",\"failed\":", audit.failed) < 0 ||
        append_count(out, ",\"notObserved\":", audit.not_observed) < 0 ||
        APPEND_LITERAL(out, ",\"findings\":[") < 0 ||
        append(out, findings->data, findings->size) < 0 ||
        (writer->audit_gates ? APPEND_LITERAL(out, "],\"gates\":true},\"scorecard\":")
                             : APPEND_LITERAL(out, "],\"gates\":false},\"scorecard\":")) < 0 ||
        append(out, scorecard, scorecard_length) < 0 || APPEND_LITERAL(out, "}\n") < 0) {
        goto done;
    }
    PyObject *key = PyTuple_Pack(3, writer->bundle, candidate, case_id);
    if (key == NULL || PyList_Append(writer->keys, key) < 0) {
        Py_XDECREF(key);
        goto done;
    }
    Py_DECREF(key);
    card->audit = (int)audit.failed;
    status = 1;
done:
    if (status != 1) {
        out->size = mark;
    }
    return status;
}

/* The placeholder a worker writes for the run number (engine/_parallel.py). */
static const char PLACEHOLDER[] = "\"repetition\":0,";
#define PLACEHOLDER_LENGTH ((Py_ssize_t)sizeof(PLACEHOLDER) - 1)

/* The placeholder in the line starting at `line` (it is near the start), or NULL. A JSON
   string's quotes are escaped, so a quote that starts the placeholder starts the key itself. */
static const char *
find_placeholder(const char *line, const char *end)
{
    for (const char *at = line; at < end; at++) {
        at = memchr(at, '"', (size_t)(end - at));
        if (at == NULL) {
            return NULL;
        }
        if (end - at >= PLACEHOLDER_LENGTH && memcmp(at, PLACEHOLDER, PLACEHOLDER_LENGTH) == 0) {
            return at;
        }
    }
    return NULL;
}

PyObject *
number_records(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 3 || !PyUnicode_Check(args[0]) || !PyList_Check(args[1]) ||
        !PyDict_Check(args[2])) {
        PyErr_SetString(PyExc_TypeError, "number_records(text, keys, repetitions)");
        return NULL;
    }
    PyObject *keys = args[1], *repetitions = args[2];
    Py_ssize_t size;
    const char *text = PyUnicode_AsUTF8AndSize(args[0], &size);
    if (text == NULL) {
        return NULL;
    }
    const char *end = text + size, *line = text;
    Buffer out;
    buffer_init(&out);
    PyObject *result = NULL;
    /* The numbers' digits replace a 0 each: room for all of them at once. */
    if (reserve(&out, size + 20 * PyList_GET_SIZE(keys)) < 0) {
        return NULL;
    }
    for (Py_ssize_t index = 0; index < PyList_GET_SIZE(keys); index++) {
        const char *found = find_placeholder(line, end);
        const char *after = found ? found + PLACEHOLDER_LENGTH : NULL;
        const char *newline = after ? memchr(after, '\n', (size_t)(end - after)) : NULL;
        if (newline == NULL) {
            PyErr_SetString(PyExc_ValueError, "fewer record lines than keys");
            goto done;
        }
        PyObject *key = PyList_GET_ITEM(keys, index);
        PyObject *seen = PyDict_GetItemWithError(repetitions, key);
        long long count = 0;
        if (seen == NULL ? PyErr_Occurred() != NULL
                         : (count = PyLong_AsLongLong(seen)) == -1 && PyErr_Occurred()) {
            goto done;
        }
        PyObject *next = PyLong_FromLongLong(count + 1);
        int stored = next == NULL ? -1 : PyDict_SetItem(repetitions, key, next);
        Py_XDECREF(next);
        if (stored < 0 || append(&out, line, found - line + PLACEHOLDER_LENGTH - 2) < 0 ||
            append_integer(&out, count + 1) < 0 || append(&out, ",", 1) < 0 ||
            append(&out, after, newline + 1 - after) < 0) {
            goto done;
        }
        line = newline + 1;
    }
    if (line != end) {
        PyErr_SetString(PyExc_ValueError, "more record lines than keys");
        goto done;
    }
    if (PyUnicode_IS_ASCII(args[0])) { /* the usual text: copied, not decoded again */
        result = PyUnicode_New(out.size, 127);
        if (result != NULL) {
            memcpy(PyUnicode_DATA(result), out.data, (size_t)out.size);
        }
    }
    else {
        result = PyUnicode_DecodeUTF8(out.data, out.size, NULL);
    }
done:
    buffer_free(&out);
    return result;
}
