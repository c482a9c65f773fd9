#include "ckernelkeyring.h"

#include <errno.h>
#include <linux/keyctl.h>
#include <sys/syscall.h>
#include <unistd.h>

static long checked(long result) { return result < 0 ? -errno : result; }

int32_t ckeyring_keyring_id(int32_t special, int create) {
    return (int32_t)checked(syscall(SYS_keyctl, KEYCTL_GET_KEYRING_ID, special, create));
}

int32_t ckeyring_add_user_key(const char *description, const void *payload, size_t length, int32_t keyring) {
    return (int32_t)checked(syscall(SYS_add_key, "user", description, payload, length, keyring));
}

int32_t ckeyring_request_user_key(const char *description) {
    return (int32_t)checked(syscall(SYS_request_key, "user", description, NULL, 0));
}

int32_t ckeyring_search_user_key(int32_t keyring, const char *description) {
    return (int32_t)checked(syscall(SYS_keyctl, KEYCTL_SEARCH, keyring, "user", description, 0));
}

long ckeyring_read(int32_t key, void *buffer, size_t capacity) {
    return checked(syscall(SYS_keyctl, KEYCTL_READ, key, buffer, capacity));
}

long ckeyring_describe(int32_t key, char *buffer, size_t capacity) {
    return checked(syscall(SYS_keyctl, KEYCTL_DESCRIBE, key, buffer, capacity));
}

int ckeyring_set_permissions(int32_t key, uint32_t permissions) {
    return (int)checked(syscall(SYS_keyctl, KEYCTL_SETPERM, key, permissions));
}

int ckeyring_set_timeout(int32_t key, unsigned seconds) {
    return (int)checked(syscall(SYS_keyctl, KEYCTL_SET_TIMEOUT, key, seconds));
}

int ckeyring_invalidate(int32_t key) {
    return (int)checked(syscall(SYS_keyctl, KEYCTL_INVALIDATE, key));
}

int ckeyring_unlink(int32_t key, int32_t keyring) {
    return (int)checked(syscall(SYS_keyctl, KEYCTL_UNLINK, key, keyring));
}

int32_t ckeyring_persistent(int32_t into) {
    return (int32_t)checked(syscall(SYS_keyctl, KEYCTL_GET_PERSISTENT, (uid_t)-1, into));
}

int32_t ckeyring_join_new_session(void) {
    return (int32_t)checked(syscall(SYS_keyctl, KEYCTL_JOIN_SESSION_KEYRING, NULL));
}
