// The kernel's key retention service (keyrings(7)) through its three
// system calls, add_key(2), request_key(2) and keyctl(2): Swift cannot call
// the variadic syscall(2), and libkeyutils would be one more library to load
// for a handful of calls. Every function returns what the system call does,
// or -errno on failure.
#ifndef CKERNELKEYRING_H
#define CKERNELKEYRING_H

#include <stddef.h>
#include <stdint.h>

/// The special keyring ids (KEY_SPEC_*).
enum {
    CKEYRING_THREAD = -1,
    CKEYRING_PROCESS = -2,
    CKEYRING_SESSION = -3,
    CKEYRING_USER = -4,
    CKEYRING_USER_SESSION = -5,
};

/// The id of a special keyring (KEYCTL_GET_KEYRING_ID); `create` 0 never
/// makes one (for the session keyring, the user session keyring stands in
/// when the process has none).
int32_t ckeyring_keyring_id(int32_t special, int create);

/// add_key(2) of a "user" key into `keyring`: a new key, or the payload of
/// the one of that description in that keyring replaced.
int32_t ckeyring_add_user_key(const char *description, const void *payload, size_t length, int32_t keyring);

/// request_key(2) of a "user" key, without an upcall: searches the thread,
/// process and session keyrings (those the caller possesses).
int32_t ckeyring_request_user_key(const char *description);

/// KEYCTL_SEARCH for a "user" key in `keyring` and what it links, no linking.
int32_t ckeyring_search_user_key(int32_t keyring, const char *description);

/// KEYCTL_READ: the payload's length (which may exceed `capacity`; then
/// nothing or a part was copied).
long ckeyring_read(int32_t key, void *buffer, size_t capacity);

/// KEYCTL_DESCRIBE: "type;uid;gid;perm;description", NUL-terminated.
long ckeyring_describe(int32_t key, char *buffer, size_t capacity);

/// KEYCTL_SETPERM, KEYCTL_SET_TIMEOUT (seconds; 0 for none), KEYCTL_INVALIDATE,
/// KEYCTL_UNLINK.
int ckeyring_set_permissions(int32_t key, uint32_t permissions);
int ckeyring_set_timeout(int32_t key, unsigned seconds);
int ckeyring_invalidate(int32_t key);
int ckeyring_unlink(int32_t key, int32_t keyring);

/// KEYCTL_GET_PERSISTENT for this process's uid: the user's persistent
/// keyring, made if missing, its expiry reset, and linked into `into`.
int32_t ckeyring_persistent(int32_t into);

/// KEYCTL_JOIN_SESSION_KEYRING with no name: a new anonymous session keyring
/// for this process (and the programs it then runs).
int32_t ckeyring_join_new_session(void);

#endif
