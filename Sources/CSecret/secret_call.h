// One keyring call: its own copies of what it needs, a worker thread that
// runs it, and a deadline the caller enforces.
#ifndef CSECRET_SECRET_CALL_H
#define CSECRET_SECRET_CALL_H

#include "csecret.h"
#include "secret_api.h"

#include <pthread.h>
#include <time.h>

enum { SECRET_CALL_MAX_ATTRIBUTES = 16 };

typedef struct SecretCall SecretCall;

/// The work of one call, run on the worker thread. Returns a csecret_status
/// and may write `call->message`.
typedef int (*SecretOperation)(SecretCall *call);

struct SecretCall {
    // Shared between the caller and the worker, under `mutex`.
    pthread_mutex_t mutex;
    pthread_cond_t changed;
    int references;
    int finished;
    int status;
    int unlocking;
    struct timespec phase_started;
    int timeout_status; // set by the caller when it gives up; 0 until then

    // Owned copies, read-only once the worker runs: the worker may outlive
    // the caller's stack after a timeout, so it must not point into it.
    const SecretFunctions *fn;
    GCancellable *cancellable;
    SecretSchema schema;
    char *schema_name;
    char *attribute_names[SECRET_CALL_MAX_ATTRIBUTES];
    char *attribute_values[SECRET_CALL_MAX_ATTRIBUTES];
    GHashTable *attributes;
    unsigned call_timeout_ms;
    unsigned unlock_timeout_ms;
    char *label;
    char *secret;
    size_t secret_length;

    // Written by the worker.
    char message[512];
    char *found_secret;
    size_t found_length;
};

/// Copies the query (and the label and secret, when given). NULL with a
/// message when the query is malformed or memory runs out.
SecretCall *secret_call_new(const SecretFunctions *fn, const csecret_query *query, const char *label,
                            const char *secret, size_t secret_length, char *message, size_t message_capacity);

/// Runs `operation` on a new thread and waits for it until the deadline.
/// Consumes the caller's reference to `call`. On CSECRET_OK, a secret the
/// operation found is moved to `*secret` (when `secret` is not NULL).
int secret_call_run(SecretCall *call, SecretOperation operation, char **secret, size_t *secret_length,
                    char *message, size_t message_capacity);

/// Brackets a wait for an unlock prompt, during which the unlock deadline
/// applies instead of the call deadline.
void secret_call_begin_unlock(SecretCall *call);
void secret_call_end_unlock(SecretCall *call);

/// The status a cancelled GLib call stands for: the timeout that cancelled it.
int secret_call_timeout_status(SecretCall *call);

#endif
