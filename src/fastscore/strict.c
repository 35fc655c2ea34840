/* Whether the fast path may read a line: the JSON checks the general path makes, on the raw
   bytes, before msgspec decodes them.

   msgspec and the general path's parser (json.loads with the hooks of contract/_json.py) agree
   on any key order, insignificant whitespace and string escapes. They part on a few texts, and
   this scanner finds those (docs/performance.md, "Any producer's JSON"):

   - an object repeating a key (after unescaping): msgspec keeps the last value, the general path
     reports duplicate_key;
   - an integer beyond 2**53 in magnitude (JavaScript does not hold it exactly; the models and
     the reasons spell such numbers the reference's way), and a number whose magnitude reaches
     1e308 (Python reads 1e400 as infinity, msgspec refuses it);
   - a \u escape that leaves a surrogate unpaired (Python keeps it in the str), and bytes that are
     not UTF-8 (the general path reports invalid_utf8);
   - anything that is not exactly one JSON value between JSON whitespace, and nesting deeper than
     MAX_DEPTH.

   Lone surrogates, invalid UTF-8, NaN and trailing text are refused by msgspec as well; they are
   checked here too so the answer does not hang on one library's leniency. A line this scanner
   passes is read by msgspec into the value json.loads gives (floats are correctly rounded by
   both). */

#include "fastscore.h"

#include <stdint.h>

#define MAX_DEPTH 256
#define SAFE_INTEGER 9007199254740992ULL /* 2**53 */
#define PAIRWISE_KEYS 16                 /* objects up to this size compare keys pairwise */

void
scratch_init(Scratch *scratch)
{
    scratch->keys = scratch->inline_keys;
    scratch->key_capacity = sizeof(scratch->inline_keys) / sizeof(scratch->inline_keys[0]);
    scratch->decoded = NULL;
    scratch->decoded_capacity = 0;
    scratch->slots = NULL;
    scratch->slot_capacity = 0;
}

void
scratch_free(Scratch *scratch)
{
    if (scratch->keys != scratch->inline_keys) {
        PyMem_Free(scratch->keys);
    }
    PyMem_Free(scratch->decoded);
    PyMem_Free(scratch->slots);
    scratch_init(scratch);
}

static int
is_digit(unsigned char c)
{
    return c >= '0' && c <= '9';
}

static const unsigned char *
skip_space(const unsigned char *p, const unsigned char *end)
{
    if (p < end && *p > ' ') {
        return p; /* compact JSON: no whitespace at all */
    }
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')) {
        p++;
    }
    return p;
}

#if defined(__SSE2__) && defined(__GNUC__)
#include <emmintrin.h>

#define PLAIN_STRIDE 16

/* How many plain bytes the sixteen at p start with (p + 16 <= end is the caller's): bytes
   before the first quote, backslash, control character or byte of a multi-byte UTF-8 sequence.
   Compared as signed bytes, 0x80..0xFF are negative, so "below 0x20" flags them with the
   control characters. */
static int
plain_run(const unsigned char *p)
{
    __m128i bytes = _mm_loadu_si128((const __m128i *)p);
    __m128i marks = _mm_or_si128(
        _mm_or_si128(_mm_cmpeq_epi8(bytes, _mm_set1_epi8('"')),
                     _mm_cmpeq_epi8(bytes, _mm_set1_epi8('\\'))),
        _mm_cmplt_epi8(bytes, _mm_set1_epi8(0x20)));
    int mask = _mm_movemask_epi8(marks);
    return mask == 0 ? PLAIN_STRIDE : __builtin_ctz((unsigned)mask);
}
#else
#define PLAIN_STRIDE 8

/* Eight bytes at once: the high bit of each byte that ends the plain run of a string (a quote,
   a backslash, a control character or a byte of a multi-byte UTF-8 sequence). A borrow can
   mark a byte above a marked one, never below: the lowest mark is always right. */
static uint64_t
needs_a_look(uint64_t word)
{
    const uint64_t ones = 0x0101010101010101ULL, highs = 0x8080808080808080ULL;
    uint64_t quote = word ^ (ones * '"');
    uint64_t backslash = word ^ (ones * '\\');
    uint64_t found = ((quote - ones) & ~quote) | ((backslash - ones) & ~backslash) |
                     ((word - ones * 0x20) & ~word) | word;
    return found & highs;
}

/* How many plain bytes the eight at p start with (p + 8 <= end is the caller's). */
static int
plain_run(const unsigned char *p)
{
    uint64_t word;
    memcpy(&word, p, sizeof(word));
    uint64_t marks = needs_a_look(word);
    if (marks == 0) {
        return 8;
    }
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    return __builtin_ctzll(marks) / 8; /* the first byte in memory is the lowest */
#else
    return 0; /* the caller looks at the next byte itself */
#endif
}
#endif

/* The value of four hex digits at p (p + 4 <= end is the caller's), or -1. */
static long
hex4(const unsigned char *p)
{
    long value = 0;
    for (int index = 0; index < 4; index++) {
        unsigned char c = p[index];
        long digit = is_digit(c)               ? c - '0'
                     : (c >= 'a' && c <= 'f') ? c - 'a' + 10
                     : (c >= 'A' && c <= 'F') ? c - 'A' + 10
                                              : -1;
        if (digit < 0) {
            return -1;
        }
        value = value * 16 + digit;
    }
    return value;
}

/* The length of the well-formed UTF-8 sequence starting at p (Unicode table 3-7), or 0. */
static int
utf8_length(const unsigned char *p, const unsigned char *end)
{
    unsigned char lead = p[0];
    int length;
    unsigned char low = 0x80, high = 0xBF; /* the range of the second byte */
    if (lead >= 0xC2 && lead <= 0xDF) {
        length = 2;
    }
    else if (lead >= 0xE0 && lead <= 0xEF) {
        length = 3;
        low = lead == 0xE0 ? 0xA0 : 0x80;
        high = lead == 0xED ? 0x9F : 0xBF; /* ED A0..BF would encode a surrogate */
    }
    else if (lead >= 0xF0 && lead <= 0xF4) {
        length = 4;
        low = lead == 0xF0 ? 0x90 : 0x80;
        high = lead == 0xF4 ? 0x8F : 0xBF;
    }
    else {
        return 0;
    }
    if (end - p < length || p[1] < low || p[1] > high) {
        return 0;
    }
    for (int index = 2; index < length; index++) {
        if (p[index] < 0x80 || p[index] > 0xBF) {
            return 0;
        }
    }
    return length;
}

/* A string from its opening quote at *at: on success *at is past the closing quote and
   *escaped says whether it held a backslash. 0 when it is not a string the general path reads
   as msgspec does. */
static int
scan_string(const unsigned char **at, const unsigned char *end, int *escaped)
{
    const unsigned char *p = *at + 1;
    *escaped = 0;
    for (;;) {
        while (end - p >= PLAIN_STRIDE) {
            int run = plain_run(p);
            p += run;
            if (run < PLAIN_STRIDE) {
                break;
            }
        }
        if (p >= end) {
            return 0;
        }
        unsigned char c = *p;
        if (c == '"') {
            *at = p + 1;
            return 1;
        }
        if (c == '\\') {
            *escaped = 1;
            if (end - p < 2) {
                return 0;
            }
            c = p[1];
            if (c == 'u') {
                long unit = end - p >= 6 ? hex4(p + 2) : -1;
                if (unit < 0 || (unit >= 0xDC00 && unit <= 0xDFFF)) {
                    return 0; /* not hex, or a low surrogate with no high one before it */
                }
                p += 6;
                if (unit >= 0xD800 && unit <= 0xDBFF) {
                    long low = (end - p >= 6 && p[0] == '\\' && p[1] == 'u') ? hex4(p + 2) : -1;
                    if (low < 0xDC00 || low > 0xDFFF) {
                        return 0; /* a high surrogate not followed by a low one */
                    }
                    p += 6;
                }
            }
            else if (c == '"' || c == '\\' || c == '/' || c == 'b' || c == 'f' || c == 'n' ||
                     c == 'r' || c == 't') {
                p += 2;
            }
            else {
                return 0;
            }
        }
        else if (c < 0x20) {
            return 0;
        }
        else if (c >= 0x80) {
            int length = utf8_length(p, end);
            if (length == 0) {
                return 0;
            }
            p += length;
        }
        else {
            p++;
        }
    }
}

/* Writes the UTF-8 text of a string scan_string accepted (between its quotes: from, to) to
   out; returns the number of bytes written, at most to - from. */
static Py_ssize_t
unescape(const unsigned char *from, const unsigned char *to, char *out)
{
    char *start = out;
    const unsigned char *p = from;
    while (p < to) {
        if (*p != '\\') {
            *out++ = (char)*p++;
            continue;
        }
        unsigned char c = p[1];
        if (c != 'u') {
            *out++ = c == 'b' ? '\b' : c == 'f' ? '\f' : c == 'n' ? '\n' : c == 'r' ? '\r'
                   : c == 't' ? '\t' : (char)c;
            p += 2;
            continue;
        }
        long point = hex4(p + 2);
        p += 6;
        if (point >= 0xD800 && point <= 0xDBFF) {
            point = 0x10000 + ((point - 0xD800) << 10) + (hex4(p + 2) - 0xDC00);
            p += 6;
        }
        /* At most as many bytes as the escape took: 1-3 for \uXXXX (6), 4 for a pair (12). */
        if (point < 0x80) {
            *out++ = (char)point;
        }
        else if (point < 0x800) {
            *out++ = (char)(0xC0 | (point >> 6));
            *out++ = (char)(0x80 | (point & 0x3F));
        }
        else if (point < 0x10000) {
            *out++ = (char)(0xE0 | (point >> 12));
            *out++ = (char)(0x80 | ((point >> 6) & 0x3F));
            *out++ = (char)(0x80 | (point & 0x3F));
        }
        else {
            *out++ = (char)(0xF0 | (point >> 18));
            *out++ = (char)(0x80 | ((point >> 12) & 0x3F));
            *out++ = (char)(0x80 | ((point >> 6) & 0x3F));
            *out++ = (char)(0x80 | (point & 0x3F));
        }
    }
    return out - start;
}

/* A number at *at (JSON's grammar); on success *at is past it. 0 for what is not a JSON number
   or is one the general path reads differently or treats as inexact (see the top). */
static int
scan_number(const unsigned char **at, const unsigned char *end)
{
    const unsigned char *p = *at;
    if (*p == '-') {
        p++;
    }
    if (p >= end) {
        return 0;
    }
    uint64_t value = 0;
    Py_ssize_t digits = 0;    /* of the integer part, when it does not start with 0 */
    Py_ssize_t magnitude = 0; /* the power of ten of the first nonzero digit, before e */
    int nonzero = 0, integer = 1;
    if (*p == '0') {
        p++;
    }
    else if (*p >= '1' && *p <= '9') {
        const unsigned char *first = p;
        while (p < end && is_digit(*p)) {
            if (p - first < 17) {
                value = value * 10 + (uint64_t)(*p - '0'); /* < 10**17: no overflow */
            }
            p++;
        }
        digits = p - first;
        nonzero = 1;
        magnitude = digits - 1;
    }
    else {
        return 0;
    }
    if (p < end && *p == '.') {
        integer = 0;
        const unsigned char *first = ++p;
        while (p < end && is_digit(*p)) {
            if (!nonzero && *p != '0') {
                nonzero = 1;
                magnitude = -(p - first) - 1;
            }
            p++;
        }
        if (p == first) {
            return 0;
        }
    }
    long exponent = 0;
    if (p < end && (*p == 'e' || *p == 'E')) {
        integer = 0;
        p++;
        int negative = p < end && *p == '-';
        if (p < end && (*p == '-' || *p == '+')) {
            p++;
        }
        const unsigned char *first = p;
        while (p < end && is_digit(*p)) {
            if (exponent < 100000) {
                exponent = exponent * 10 + (*p - '0');
            }
            p++;
        }
        if (p == first) {
            return 0;
        }
        if (negative) {
            exponent = -exponent;
        }
    }
    *at = p;
    if (integer) {
        return digits <= 16 && value <= SAFE_INTEGER;
    }
    /* Below 10**308 a double holds the value (DBL_MAX is 1.797...e308); tiny values round to
       a subnormal or zero alike in both parsers. */
    return !nonzero || magnitude + exponent < 308;
}

static uint64_t
key_hash(const Key *key)
{
    uint64_t hash = 0xcbf29ce484222325ULL; /* FNV-1a */
    for (Py_ssize_t index = 0; index < key->length; index++) {
        hash = (hash ^ (unsigned char)key->text[index]) * 0x100000001b3ULL;
    }
    return hash;
}

static int
same_key(const Key *one, const Key *other)
{
    return one->length == other->length &&
           (one->length == 0 || (one->text[0] == other->text[0] &&
                                 memcmp(one->text, other->text, (size_t)one->length) == 0));
}

/* 1 when the keys keys[0:count] of one object are distinct, 0 when one repeats, -1 on error. */
static int
distinct_keys(Scratch *scratch, const Key *keys, Py_ssize_t count)
{
    if (count <= PAIRWISE_KEYS) {
        for (Py_ssize_t one = 1; one < count; one++) {
            for (Py_ssize_t other = 0; other < one; other++) {
                if (same_key(&keys[one], &keys[other])) {
                    return 0;
                }
            }
        }
        return 1;
    }
    /* An open-addressing table of at least twice as many slots as keys: slot = index + 1. */
    Py_ssize_t size = 64;
    while (size < 2 * count) {
        if (size > PY_SSIZE_T_MAX / 4 / (Py_ssize_t)sizeof(Py_ssize_t)) {
            PyErr_NoMemory();
            return -1;
        }
        size *= 2;
    }
    if (scratch->slot_capacity < size) {
        Py_ssize_t *grown = PyMem_Realloc(scratch->slots, (size_t)size * sizeof(Py_ssize_t));
        if (grown == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        scratch->slots = grown;
        scratch->slot_capacity = size;
    }
    memset(scratch->slots, 0, (size_t)size * sizeof(Py_ssize_t));
    for (Py_ssize_t index = 0; index < count; index++) {
        size_t slot = (size_t)(key_hash(&keys[index]) & (uint64_t)(size - 1));
        while (scratch->slots[slot] != 0) {
            if (same_key(&keys[scratch->slots[slot] - 1], &keys[index])) {
                return 0;
            }
            slot = (slot + 1) & (size_t)(size - 1);
        }
        scratch->slots[slot] = index + 1;
    }
    return 1;
}

/* Records the key of the string between from and to (its quotes excluded) of a line of
   `length` bytes; 0 on success, -1 on error. */
static int
add_key(Scratch *scratch, Py_ssize_t count, const unsigned char *from, const unsigned char *to,
        int escaped, Py_ssize_t length, Py_ssize_t *decoded_size)
{
    if (count == scratch->key_capacity) {
        if (count > PY_SSIZE_T_MAX / 2 / (Py_ssize_t)sizeof(Key)) {
            PyErr_NoMemory();
            return -1;
        }
        Py_ssize_t capacity = 2 * count;
        Key *grown = PyMem_Malloc((size_t)capacity * sizeof(Key));
        if (grown == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        memcpy(grown, scratch->keys, (size_t)count * sizeof(Key));
        if (scratch->keys != scratch->inline_keys) {
            PyMem_Free(scratch->keys);
        }
        scratch->keys = grown;
        scratch->key_capacity = capacity;
    }
    Key *key = &scratch->keys[count];
    if (!escaped) {
        /* Valid UTF-8 with no escape: the bytes are the key's canonical UTF-8. */
        key->text = (const char *)from;
        key->length = to - from;
        return 0;
    }
    /* Unescaped keys of a line take at most the line's length in all, so the buffer is sized
       once per line, before its first escaped key, and earlier keys' text never moves. */
    if (*decoded_size == 0 && scratch->decoded_capacity < length) {
        char *grown = PyMem_Realloc(scratch->decoded, (size_t)length);
        if (grown == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        scratch->decoded = grown;
        scratch->decoded_capacity = length;
    }
    key->text = scratch->decoded + *decoded_size;
    key->length = unescape(from, to, scratch->decoded + *decoded_size);
    *decoded_size += key->length;
    return 0;
}

int
unambiguous_json(Scratch *scratch, const char *text, Py_ssize_t length)
{
    const unsigned char *p = (const unsigned char *)text, *end = p + length;
    unsigned char in_object[MAX_DEPTH];
    Py_ssize_t first_key[MAX_DEPTH];
    int depth = 0;
    Py_ssize_t keys = 0, decoded_size = 0;
    p = skip_space(p, end);
    for (;;) {
        /* A value. */
        if (p >= end) {
            return 0;
        }
        unsigned char c = *p;
        if (c == '{' || c == '[') {
            if (depth == MAX_DEPTH) {
                return 0;
            }
            in_object[depth] = c == '{';
            first_key[depth] = keys;
            depth++;
            p = skip_space(p + 1, end);
            if (p < end && *p == (c == '{' ? '}' : ']')) {
                depth--;
                p++;
            }
            else if (c == '[') {
                continue;
            }
            else {
                goto key;
            }
        }
        else if (c == '"') {
            int escaped;
            if (!scan_string(&p, end, &escaped)) {
                return 0;
            }
        }
        else if (c == '-' || is_digit(c)) {
            if (!scan_number(&p, end)) {
                return 0;
            }
        }
        else if (end - p >= 4 && (memcmp(p, "true", 4) == 0 || memcmp(p, "null", 4) == 0)) {
            p += 4;
        }
        else if (end - p >= 5 && memcmp(p, "false", 5) == 0) {
            p += 5;
        }
        else {
            return 0;
        }
        /* After a value: the end, or what its container says next. */
        for (;;) {
            p = skip_space(p, end);
            if (depth == 0) {
                return p == end;
            }
            if (p >= end) {
                return 0;
            }
            int object = in_object[depth - 1];
            if (*p == ',') {
                p = skip_space(p + 1, end);
                if (object) {
                    goto key;
                }
                break;
            }
            if (*p != (object ? '}' : ']')) {
                return 0;
            }
            if (object) {
                int distinct = distinct_keys(scratch, scratch->keys + first_key[depth - 1],
                                             keys - first_key[depth - 1]);
                if (distinct != 1) {
                    return distinct;
                }
                keys = first_key[depth - 1];
            }
            depth--;
            p++;
        }
        continue;
    key:
        if (p >= end || *p != '"') {
            return 0;
        }
        {
            const unsigned char *from = p + 1;
            int escaped;
            if (!scan_string(&p, end, &escaped) ||
                add_key(scratch, keys, from, p - 1, escaped, length, &decoded_size) < 0) {
                return PyErr_Occurred() ? -1 : 0;
            }
            keys++;
        }
        p = skip_space(p, end);
        if (p >= end || *p != ':') {
            return 0;
        }
        p = skip_space(p + 1, end);
    }
}
