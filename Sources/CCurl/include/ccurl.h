// CCurl: libcurl behind dlopen, so that processes that never talk to the
// server (`lib status`) never pay for loading libcurl and its ~40 libraries.
//
// libcurl's curl_easy_setopt/curl_easy_getinfo are variadic, which Swift
// cannot call; each wrapper here passes exactly one typed argument.
// The header of libcurl4-openssl-dev is used for types and constants only:
// nothing here is linked against libcurl.
#ifndef CCURL_H
#define CCURL_H

#include <curl/curl.h>
#include <stddef.h>

/// Loads libcurl.so.4 and resolves the functions used below, once per process.
/// Returns 0 on success, -1 otherwise (see ccurl_load_error). Thread-safe.
int ccurl_load(void);

/// Why ccurl_load failed ("" when it did not), e.g. the dlopen message.
const char *ccurl_load_error(void);

/// Whether libcurl is loaded into this process (never loads it).
int ccurl_is_loaded(void);

/// libcurl's version string, e.g. "libcurl/7.88.1 OpenSSL/3.0.19 ...";
/// NULL when not loaded.
const char *ccurl_version(void);

// The easy interface. All of these require a successful ccurl_load().
CURL *ccurl_easy_init(void);
void ccurl_easy_cleanup(CURL *handle);
void ccurl_easy_reset(CURL *handle);
CURLcode ccurl_easy_perform(CURL *handle);
const char *ccurl_easy_strerror(CURLcode code);

CURLcode ccurl_setopt_long(CURL *handle, CURLoption option, long value);
CURLcode ccurl_setopt_string(CURL *handle, CURLoption option, const char *value);
CURLcode ccurl_setopt_pointer(CURL *handle, CURLoption option, void *value);
CURLcode ccurl_setopt_offset(CURL *handle, CURLoption option, curl_off_t value);

CURLcode ccurl_getinfo_long(CURL *handle, CURLINFO info, long *value);
CURLcode ccurl_getinfo_offset(CURL *handle, CURLINFO info, curl_off_t *value);
/// The string is owned by the handle and valid until its next request.
CURLcode ccurl_getinfo_string(CURL *handle, CURLINFO info, const char **value);

struct curl_slist *ccurl_slist_append(struct curl_slist *list, const char *line);
void ccurl_slist_free_all(struct curl_slist *list);

/// A growable byte buffer filled by the callbacks installed with
/// ccurl_collect_response. `failed` is set when memory ran out; `overflowed`
/// when more than `limit` bytes (0: no limit) arrived, which also stops the
/// transfer there (CURLE_WRITE_ERROR), so memory stays bounded.
typedef struct {
    unsigned char *bytes;
    size_t count;
    size_t capacity;
    size_t limit;
    int failed;
    int overflowed;
} ccurl_buffer;

/// Empties the buffer, keeping its memory for the next response.
void ccurl_buffer_clear(ccurl_buffer *buffer);
/// Frees the buffer's memory.
void ccurl_buffer_release(ccurl_buffer *buffer);

/// Installs write and header callbacks appending the body to `body` and the
/// header lines of the final response to `headers` (each header block that
/// starts with an "HTTP/" status line replaces the previous one, so an
/// interim 100 Continue does not leak into the result).
CURLcode ccurl_collect_response(CURL *handle, ccurl_buffer *body, ccurl_buffer *headers);

/// Turns on libcurl's verbose trace (-vv) on standard error, with the values
/// of Authorization, Proxy-Authorization, Cookie and Set-Cookie redacted and
/// no bodies.
CURLcode ccurl_enable_redacted_trace(CURL *handle);

#endif
