/* A .json file's top-level array as JSON Lines, for the block scorer.

   A pretty-printed array of observations spans many lines per element; the block scorer reads
   one value per line. array_lines() copies each element of the top-level array onto a line of
   its own without the whitespace between its tokens (a pretty-printed element loses about a
   third of its bytes, which the strict scan and the decoder then need not read). Whitespace
   between tokens is insignificant in JSON, with one exception the copy keeps: between two
   bytes of literals or numbers (`1 2`, `tru e`) dropping it would join two tokens into one, so
   one space is written there. The token sequence, and with it the value or the invalidity of
   the text, is therefore unchanged.

   It returns None whenever it cannot be sure the lines hold exactly the array's elements: not
   an array, an empty one, an empty element (`[1,,2]`, `[1,]`), text after the closing bracket,
   a string left open, or a raw control character inside a string (invalid JSON that a raw
   newline would hide by splitting the string over two lines). Everything else about an element
   is judged by the block scorer, which declines what it is not sure of; the caller then scores
   the whole file on the general path, so a file gives the same results and errors whichever
   path scored it. */

#include "fastscore.h"

/* What a byte is outside strings. */
enum { SCALAR = 0, SPACE, QUOTE, OPEN, CLOSE, COMMA, COLON };

static const unsigned char kinds[256] = {
    [' '] = SPACE, ['\t'] = SPACE, ['\n'] = SPACE, ['\r'] = SPACE, ['"'] = QUOTE,
    ['['] = OPEN,  ['{'] = OPEN,   [']'] = CLOSE,  ['}'] = CLOSE,  [','] = COMMA, [':'] = COLON,
};

/* Bytes that end a string's plain run: the quote, the backslash and control characters. */
static const unsigned char stops[256] = {
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, /* 0x00..0x0F */
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, /* 0x10..0x1F */
    ['"'] = 1, ['\\'] = 1,
};

#if defined(__SSE2__) && defined(__GNUC__)
#include <emmintrin.h>

#define STRIDE 16

/* How many of the sixteen bytes at p (p + 16 <= end is the caller's) come before the first
   quote, backslash or control character. */
static inline int
string_run(const unsigned char *p)
{
    __m128i bytes = _mm_loadu_si128((const __m128i *)p);
    __m128i control = _mm_cmpeq_epi8(_mm_max_epu8(bytes, _mm_set1_epi8(0x1F)), _mm_set1_epi8(0x1F));
    __m128i marks = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(bytes, _mm_set1_epi8('"')),
                                              _mm_cmpeq_epi8(bytes, _mm_set1_epi8('\\'))),
                                 control);
    int mask = _mm_movemask_epi8(marks);
    return mask == 0 ? STRIDE : __builtin_ctz((unsigned)mask);
}

/* How many of the sixteen bytes at p (p + 16 <= end is the caller's) are JSON whitespace
   before the first that is not. */
static inline int
space_run(const unsigned char *p)
{
    __m128i bytes = _mm_loadu_si128((const __m128i *)p);
    __m128i spaces = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(bytes, _mm_set1_epi8(' ')),
                                               _mm_cmpeq_epi8(bytes, _mm_set1_epi8('\n'))),
                                  _mm_or_si128(_mm_cmpeq_epi8(bytes, _mm_set1_epi8('\t')),
                                               _mm_cmpeq_epi8(bytes, _mm_set1_epi8('\r'))));
    int mask = ~_mm_movemask_epi8(spaces) & 0xFFFF;
    return mask == 0 ? STRIDE : __builtin_ctz((unsigned)mask);
}
#endif

/* Past the whitespace at p. */
static inline const unsigned char *
skip_spaces(const unsigned char *p, const unsigned char *end)
{
#ifdef STRIDE
    while (end - p >= STRIDE) {
        int run = space_run(p);
        p += run;
        if (run < STRIDE) {
            return p;
        }
    }
#endif
    while (p < end && kinds[*p] == SPACE) {
        p++;
    }
    return p;
}

/* The string opening at *at (its quote) copied to *write, which is never ahead of *at in the
   copy (the copy only drops bytes); 0 when it is left open or holds a raw control character. */
static int
copy_string(const unsigned char **at, const unsigned char *end, char **write)
{
    const unsigned char *p = *at + 1;
    char *out = *write;
    *out++ = '"';
    for (;;) {
#ifdef STRIDE
        /* Sixteen bytes copied at once, the plain ones kept: out + 16 stays within the copy's
           buffer, as long as the data's, since out is behind p. */
        while (end - p >= STRIDE) {
            int run = string_run(p);
            _mm_storeu_si128((__m128i *)out, _mm_loadu_si128((const __m128i *)p));
            p += run;
            out += run;
            if (run < STRIDE) {
                break;
            }
        }
#endif
        const unsigned char *run = p;
        while (p < end && !stops[*p]) {
            p++;
        }
        memcpy(out, run, (size_t)(p - run));
        out += p - run;
        if (p == end || *p < 0x20) {
            return 0;
        }
        *out++ = (char)*p++;
        if (p[-1] == '"') {
            break;
        }
        /* A backslash: the escaped byte goes with it (a quote or a backslash ends nothing). */
        if (p == end || *p < 0x20) {
            return 0;
        }
        *out++ = (char)*p++;
    }
    *at = p;
    *write = out;
    return 1;
}

/* The elements of data's top-level array, one per line (joined by b"\n"), or NULL with no
   error set when the array cannot be split safely; NULL with an error on failure. */
static PyObject *
split_array(const unsigned char *at, const unsigned char *end, Py_ssize_t length, int *unsure)
{
    *unsure = 1;
    at = skip_spaces(at, end);
    if (at == end || *at != '[') {
        return NULL;
    }
    at++;
    PyObject *lines = PyBytes_FromStringAndSize(NULL, length);
    if (lines == NULL) {
        *unsure = 0;
        return NULL;
    }
    char *const start = PyBytes_AS_STRING(lines);
    char *write = start;
    for (Py_ssize_t elements = 0;; elements++) {
        at = skip_spaces(at, end);
        if (elements > 0) {
            *write++ = '\n';
        }
        char *const element = write;
        Py_ssize_t depth = 0;
        while (at < end) {
            unsigned char c = *at;
            switch (kinds[c]) {
            case QUOTE:
                if (!copy_string(&at, end, &write)) {
                    goto unsure;
                }
                continue;
            case SPACE:
                at = skip_spaces(at, end);
                /* Two bytes of literals or numbers keep a space between them. */
                if (at < end && write > element && kinds[*at] == SCALAR &&
                    kinds[(unsigned char)write[-1]] == SCALAR) {
                    *write++ = ' ';
                }
                continue;
            case CLOSE:
                if (depth == 0) {
                    if (c == ']') {
                        goto ended;
                    }
                    goto unsure; /* [}] */
                }
                depth--;
                break;
            case OPEN:
                depth++;
                goto structural;
            case COMMA:
                if (depth == 0) {
                    goto ended;
                }
                goto structural;
            case COLON:
            structural:
                /* Whitespace after a structural byte goes without a look at what follows. */
                *write++ = (char)c;
                at = skip_spaces(at + 1, end);
                continue;
            default:
                break;
            }
            *write++ = (char)c;
            at++;
        }
    ended:
        if (at == end || write == element) {
            goto unsure; /* left open, or [], [1,,2] or [1,] */
        }
        if (*at++ == ']') {
            break;
        }
    }
    at = skip_spaces(at, end);
    if (at != end) {
        goto unsure;
    }
    if (_PyBytes_Resize(&lines, write - start) < 0) {
        *unsure = 0;
        return NULL;
    }
    *unsure = 0;
    return lines;
unsure:
    Py_DECREF(lines);
    return NULL;
}

PyObject *
array_lines(PyObject *module, PyObject *data)
{
    Py_buffer view;
    if (PyObject_GetBuffer(data, &view, PyBUF_SIMPLE) < 0) {
        return NULL;
    }
    const unsigned char *at = view.buf;
    int unsure;
    PyObject *lines = split_array(at, at + view.len, view.len, &unsure);
    PyBuffer_Release(&view);
    if (lines == NULL && unsure) {
        Py_RETURN_NONE;
    }
    return lines;
}
