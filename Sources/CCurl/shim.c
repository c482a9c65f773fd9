// Lazy libcurl: dlopen on first use, typed wrappers for variadic calls.
// See include/ccurl.h for why.
#include "ccurl.h"

#include <cdynamiclibrary.h>

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

typedef CURLcode (*global_init_fn)(long);
typedef CURL *(*easy_init_fn)(void);
typedef void (*easy_cleanup_fn)(CURL *);
typedef void (*easy_reset_fn)(CURL *);
typedef CURLcode (*easy_perform_fn)(CURL *);
typedef const char *(*easy_strerror_fn)(CURLcode);
typedef CURLcode (*easy_setopt_fn)(CURL *, CURLoption, ...);
typedef CURLcode (*easy_getinfo_fn)(CURL *, CURLINFO, ...);
typedef struct curl_slist *(*slist_append_fn)(struct curl_slist *, const char *);
typedef void (*slist_free_all_fn)(struct curl_slist *);
typedef char *(*version_fn)(void);

static struct {
    global_init_fn global_init;
    easy_init_fn easy_init;
    easy_cleanup_fn easy_cleanup;
    easy_reset_fn easy_reset;
    easy_perform_fn easy_perform;
    easy_strerror_fn easy_strerror;
    easy_setopt_fn easy_setopt;
    easy_getinfo_fn easy_getinfo;
    slist_append_fn slist_append;
    slist_free_all_fn slist_free_all;
    version_fn version;
} curl;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static int load_status = -1;
static char load_error[512] = "";

static void load_library(void) {
    // The soname is the one Debian's libcurl4 (OpenSSL) ships.
    const dynamic_symbol symbols[] = {
        {"curl_global_init", (void **)&curl.global_init},
        {"curl_easy_init", (void **)&curl.easy_init},
        {"curl_easy_cleanup", (void **)&curl.easy_cleanup},
        {"curl_easy_reset", (void **)&curl.easy_reset},
        {"curl_easy_perform", (void **)&curl.easy_perform},
        {"curl_easy_strerror", (void **)&curl.easy_strerror},
        {"curl_easy_setopt", (void **)&curl.easy_setopt},
        {"curl_easy_getinfo", (void **)&curl.easy_getinfo},
        {"curl_slist_append", (void **)&curl.slist_append},
        {"curl_slist_free_all", (void **)&curl.slist_free_all},
        {"curl_version", (void **)&curl.version},
    };
    if (dynamic_library_open("libcurl.so.4", symbols, sizeof symbols / sizeof symbols[0], load_error,
                             sizeof load_error) == NULL) {
        return;
    }
    // curl_global_init is not thread-safe before 7.84; pthread_once makes it
    // run exactly once. https://curl.se/libcurl/c/curl_global_init.html
    CURLcode code = curl.global_init(CURL_GLOBAL_DEFAULT);
    if (code != CURLE_OK) {
        snprintf(load_error, sizeof load_error, "curl_global_init failed (%d)", (int)code);
        return;
    }
    load_status = 0;
}

int ccurl_load(void) {
    pthread_once(&load_once, load_library);
    return load_status;
}

const char *ccurl_load_error(void) { return load_error; }

int ccurl_is_loaded(void) {
    // RTLD_NOLOAD only looks: it never loads the library.
    void *library = dlopen("libcurl.so.4", RTLD_NOW | RTLD_NOLOAD);
    if (library == NULL) return 0;
    dlclose(library);
    return 1;
}

const char *ccurl_version(void) { return load_status == 0 ? curl.version() : NULL; }

CURL *ccurl_easy_init(void) { return curl.easy_init(); }
void ccurl_easy_cleanup(CURL *handle) { curl.easy_cleanup(handle); }
void ccurl_easy_reset(CURL *handle) { curl.easy_reset(handle); }
CURLcode ccurl_easy_perform(CURL *handle) { return curl.easy_perform(handle); }
const char *ccurl_easy_strerror(CURLcode code) { return curl.easy_strerror(code); }

CURLcode ccurl_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl.easy_setopt(handle, option, value);
}
CURLcode ccurl_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return curl.easy_setopt(handle, option, value);
}
CURLcode ccurl_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return curl.easy_setopt(handle, option, value);
}
CURLcode ccurl_setopt_offset(CURL *handle, CURLoption option, curl_off_t value) {
    return curl.easy_setopt(handle, option, value);
}

CURLcode ccurl_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl.easy_getinfo(handle, info, value);
}
CURLcode ccurl_getinfo_offset(CURL *handle, CURLINFO info, curl_off_t *value) {
    return curl.easy_getinfo(handle, info, value);
}
CURLcode ccurl_getinfo_string(CURL *handle, CURLINFO info, const char **value) {
    char *result = NULL;
    CURLcode code = curl.easy_getinfo(handle, info, &result);
    *value = result;
    return code;
}

struct curl_slist *ccurl_slist_append(struct curl_slist *list, const char *line) {
    return curl.slist_append(list, line);
}
void ccurl_slist_free_all(struct curl_slist *list) { curl.slist_free_all(list); }

void ccurl_buffer_clear(ccurl_buffer *buffer) {
    buffer->count = 0;
    buffer->failed = 0;
    buffer->overflowed = 0;
}

void ccurl_buffer_release(ccurl_buffer *buffer) {
    free(buffer->bytes);
    buffer->bytes = NULL;
    buffer->count = 0;
    buffer->capacity = 0;
    buffer->failed = 0;
    buffer->overflowed = 0;
}

static int buffer_append(ccurl_buffer *buffer, const char *bytes, size_t count) {
    if (count > (size_t)-1 - buffer->count) return -1;
    size_t needed = buffer->count + count;
    if (buffer->limit != 0 && needed > buffer->limit) {
        buffer->overflowed = 1;
        return -1;
    }
    if (needed > buffer->capacity) {
        size_t capacity = buffer->capacity ? buffer->capacity : 16384;
        while (capacity < needed) capacity = capacity > (size_t)-1 / 2 ? needed : capacity * 2;
        unsigned char *grown = realloc(buffer->bytes, capacity);
        if (grown == NULL) return -1;
        buffer->bytes = grown;
        buffer->capacity = capacity;
    }
    memcpy(buffer->bytes + buffer->count, bytes, count);
    buffer->count = needed;
    return 0;
}

// Returning a count other than the one given makes libcurl abort the
// transfer with CURLE_WRITE_ERROR. https://curl.se/libcurl/c/CURLOPT_WRITEFUNCTION.html
static size_t collect_body(char *bytes, size_t size, size_t count, void *context) {
    ccurl_buffer *buffer = context;
    if (buffer_append(buffer, bytes, size * count) != 0) {
        if (!buffer->overflowed) buffer->failed = 1;
        return 0;
    }
    return size * count;
}

static size_t collect_header(char *bytes, size_t size, size_t count, void *context) {
    ccurl_buffer *buffer = context;
    size_t length = size * count;
    if (length >= 5 && memcmp(bytes, "HTTP/", 5) == 0) buffer->count = 0;
    if (buffer_append(buffer, bytes, length) != 0) {
        if (!buffer->overflowed) buffer->failed = 1;
        return 0;
    }
    return length;
}

CURLcode ccurl_collect_response(CURL *handle, ccurl_buffer *body, ccurl_buffer *headers) {
    CURLcode code;
    if ((code = curl.easy_setopt(handle, CURLOPT_WRITEFUNCTION, collect_body)) != CURLE_OK) return code;
    if ((code = curl.easy_setopt(handle, CURLOPT_WRITEDATA, body)) != CURLE_OK) return code;
    if ((code = curl.easy_setopt(handle, CURLOPT_HEADERFUNCTION, collect_header)) != CURLE_OK) return code;
    return curl.easy_setopt(handle, CURLOPT_HEADERDATA, headers);
}

// -vv: libcurl's own trace (CURLOPT_VERBOSE) on standard error, headers
// included but never a secret: Authorization, Proxy-Authorization, Cookie
// and Set-Cookie values are replaced, and no body is written.
static int trace_redacted(CURL *handle, curl_infotype type, char *data, size_t size, void *context) {
    (void)handle;
    (void)context;
    const char *prefix;
    switch (type) {
    case CURLINFO_TEXT: prefix = "lib: * "; break;
    case CURLINFO_HEADER_IN: prefix = "lib: < "; break;
    case CURLINFO_HEADER_OUT: prefix = "lib: > "; break;
    default: return 0;
    }
    static const char *const secret_headers[] = {"authorization:", "proxy-authorization:", "cookie:", "set-cookie:"};
    size_t start = 0;
    while (start < size) {
        size_t end = start;
        while (end < size && data[end] != '\n') end++;
        size_t length = end - start;
        if (length > 0 && data[start + length - 1] == '\r') length--;
        if (length > 0) {
            fputs(prefix, stderr);
            size_t shown = length;
            for (size_t i = 0; i < sizeof secret_headers / sizeof secret_headers[0]; i++) {
                size_t name = strlen(secret_headers[i]);
                if (length >= name && strncasecmp(data + start, secret_headers[i], name) == 0) {
                    fwrite(data + start, 1, name, stderr);
                    fputs(" REDACTED", stderr);
                    shown = 0;
                    break;
                }
            }
            if (shown) fwrite(data + start, 1, shown, stderr);
            fputc('\n', stderr);
        }
        start = end + 1;
    }
    return 0;
}

CURLcode ccurl_enable_redacted_trace(CURL *handle) {
    CURLcode code;
    if ((code = curl.easy_setopt(handle, CURLOPT_DEBUGFUNCTION, trace_redacted)) != CURLE_OK) return code;
    return curl.easy_setopt(handle, CURLOPT_VERBOSE, 1L);
}
