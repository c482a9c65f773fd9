// csecret: the few libsecret calls lib needs, behind plain C functions.
//
// libsecret (and GLib, GObject and GIO under it) is loaded with dlopen the
// first time one of these functions runs, never at process start: linking it
// would make every process, `lib status` in a shell prompt included, load
// and relocate 16 more libraries (measured: dlopen'ing them takes a Swift
// binary from 1.8 ms to 4.2 ms; with libcurl too, ~10 ms, DESIGN.md).
// Each call runs with a deadline and returns a status code plus a message;
// the secret itself never appears in a message.
#ifndef CSECRET_H
#define CSECRET_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/// What a keyring call came to. LibKeyring turns each into a KeyringError.
typedef enum {
    CSECRET_OK = 0,
    /// No item matches the attributes.
    CSECRET_NOT_FOUND = 1,
    /// The session bus could not be reached (unset address, no socket, refused).
    CSECRET_NO_SESSION_BUS = 2,
    /// The bus has no org.freedesktop.secrets and could not start one.
    CSECRET_NO_SECRET_SERVICE = 3,
    /// The Secret Service has no default collection to store into.
    CSECRET_NO_DEFAULT_KEYRING = 4,
    /// The collection or item is locked (the service said so).
    CSECRET_LOCKED = 5,
    /// An unlock prompt came back dismissed. The Secret Service reports a
    /// prompt that could not be shown (no display) exactly like one the user
    /// cancelled; the caller tells them apart.
    CSECRET_DISMISSED = 6,
    /// The service did not answer before the call deadline.
    CSECRET_TIMED_OUT = 7,
    /// Nobody answered the unlock prompt before the unlock deadline.
    CSECRET_UNLOCK_TIMED_OUT = 8,
    /// libsecret-1.so.0 (or a symbol in it) could not be loaded.
    CSECRET_NOT_LOADABLE = 9,
    /// Anything else; the message is GLib's.
    CSECRET_FAILED = 10,
} csecret_status;

/// Which items a call is about, and how long it may take.
typedef struct {
    /// The schema name, stored as the item's `xdg:schema` attribute.
    const char *schema_name;
    /// `attribute_count` names and values, all strings (at most 16).
    const char *const *attribute_names;
    const char *const *attribute_values;
    unsigned attribute_count;
    /// Deadline for talking to the bus and the service, in milliseconds.
    unsigned call_timeout_ms;
    /// Deadline for a person to answer an unlock prompt, in milliseconds.
    unsigned unlock_timeout_ms;
} csecret_query;

/// Chooses the file name dlopen loads libsecret from (default
/// "libsecret-1.so.0"). Only before the first call; returns 0 on success,
/// -1 when the library has been loaded (or tried) already.
int csecret_use_library(const char *file_name);

/// Loads libsecret now, if not done yet. Returns CSECRET_OK or
/// CSECRET_NOT_LOADABLE with dlerror's message.
int csecret_load(char *message, size_t message_capacity);

/// Stores (or replaces) the secret of the item with exactly these
/// attributes in the default collection, unlocking it first when locked.
int csecret_store(const csecret_query *query, const char *label,
                  const char *secret, size_t secret_length,
                  char *message, size_t message_capacity);

/// Looks up the secret of the item with these attributes, unlocking it first
/// when locked. On CSECRET_OK, `*secret` is a malloc'ed, NUL-terminated copy
/// of `*secret_length` bytes, to be released with csecret_free_secret.
int csecret_lookup(const csecret_query *query,
                   char **secret, size_t *secret_length,
                   char *message, size_t message_capacity);

/// Deletes every item with these attributes, unlocking them first when locked.
int csecret_delete(const csecret_query *query,
                   char *message, size_t message_capacity);

/// Overwrites and frees a secret returned by csecret_lookup.
void csecret_free_secret(char *secret, size_t secret_length);

#ifdef __cplusplus
}
#endif

#endif
