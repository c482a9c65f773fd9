// Runs a keyring call on a worker thread under a deadline.
//
// Why a worker thread plus a GCancellable, and not either alone: the sync
// libsecret calls honour a GCancellable (GDBus abandons the pending method
// call and the call returns G_IO_ERROR_CANCELLED at once, even when the
// service never answers), and g_cancellable_cancel may be called from any
// thread. But the deadline must hold even if some step does not look at
// the cancellable. So the caller waits on a condition variable until the
// deadline, then cancels, gives the worker a short grace period to return,
// and returns "timed out" whether or not it has. A worker that is still
// running owns everything it touches (reference-counted SecretCall, its own
// copies of the inputs) and frees it when it finishes; nothing it uses lives
// on the caller's stack. GLib is thread-safe, so later calls on other
// threads do not interfere with it.
#include "secret_call.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/// How long the caller waits, after cancelling, for the worker to return.
static const unsigned cancel_grace_ms = 500;

static struct timespec monotonic_now(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return now;
}

static struct timespec adding_ms(struct timespec time, unsigned ms) {
    time.tv_sec += ms / 1000;
    time.tv_nsec += (long)(ms % 1000) * 1000000L;
    if (time.tv_nsec >= 1000000000L) {
        time.tv_sec += 1;
        time.tv_nsec -= 1000000000L;
    }
    return time;
}

static char *copy_string(const char *text) {
    return text ? strdup(text) : NULL;
}

static void wipe_and_free(char *bytes, size_t length) {
    if (bytes == NULL) return;
    explicit_bzero(bytes, length);
    free(bytes);
}

static void release(SecretCall *call) {
    pthread_mutex_lock(&call->mutex);
    int remaining = --call->references;
    pthread_mutex_unlock(&call->mutex);
    if (remaining > 0) return;

    if (call->attributes) call->fn->g_hash_table_unref(call->attributes);
    if (call->cancellable) call->fn->g_object_unref(call->cancellable);
    free(call->schema_name);
    for (unsigned i = 0; i < SECRET_CALL_MAX_ATTRIBUTES; i++) {
        free(call->attribute_names[i]);
        free(call->attribute_values[i]);
    }
    free(call->label);
    wipe_and_free(call->secret, call->secret_length);
    wipe_and_free(call->found_secret, call->found_length);
    pthread_cond_destroy(&call->changed);
    pthread_mutex_destroy(&call->mutex);
    free(call);
}

SecretCall *secret_call_new(const SecretFunctions *fn, const csecret_query *query, const char *label,
                            const char *secret, size_t secret_length, char *message, size_t message_capacity) {
    if (query == NULL || query->schema_name == NULL || query->attribute_count > SECRET_CALL_MAX_ATTRIBUTES ||
        (query->attribute_count > 0 && (query->attribute_names == NULL || query->attribute_values == NULL))) {
        csecret_set_message(message, message_capacity, "malformed keyring query");
        return NULL;
    }
    SecretCall *call = calloc(1, sizeof *call);
    if (call == NULL) {
        csecret_set_message(message, message_capacity, "out of memory");
        return NULL;
    }
    pthread_condattr_t condition_attributes;
    pthread_condattr_init(&condition_attributes);
    pthread_condattr_setclock(&condition_attributes, CLOCK_MONOTONIC);
    pthread_cond_init(&call->changed, &condition_attributes);
    pthread_condattr_destroy(&condition_attributes);
    pthread_mutex_init(&call->mutex, NULL);
    call->references = 1;
    call->fn = fn;
    call->call_timeout_ms = query->call_timeout_ms;
    call->unlock_timeout_ms = query->unlock_timeout_ms;

    int complete = 1;
    call->schema_name = copy_string(query->schema_name);
    complete &= call->schema_name != NULL;
    call->schema.name = call->schema_name;
    call->schema.flags = SECRET_SCHEMA_NONE;
    for (unsigned i = 0; i < query->attribute_count; i++) {
        call->attribute_names[i] = copy_string(query->attribute_names[i]);
        call->attribute_values[i] = copy_string(query->attribute_values[i]);
        complete &= call->attribute_names[i] != NULL && call->attribute_values[i] != NULL;
        call->schema.attributes[i].name = call->attribute_names[i];
        call->schema.attributes[i].type = SECRET_SCHEMA_ATTRIBUTE_STRING;
    }
    if (label) {
        call->label = copy_string(label);
        complete &= call->label != NULL;
    }
    if (secret) {
        call->secret = malloc(secret_length + 1);
        complete &= call->secret != NULL;
        if (call->secret) {
            memcpy(call->secret, secret, secret_length);
            call->secret[secret_length] = '\0';
            call->secret_length = secret_length;
        }
    }
    call->cancellable = fn->g_cancellable_new();
    call->attributes = fn->g_hash_table_new(fn->g_str_hash, fn->g_str_equal);
    complete &= call->cancellable != NULL && call->attributes != NULL;
    if (!complete) {
        csecret_set_message(message, message_capacity, "out of memory");
        release(call);
        return NULL;
    }
    for (unsigned i = 0; i < query->attribute_count; i++) {
        fn->g_hash_table_insert(call->attributes, call->attribute_names[i], call->attribute_values[i]);
    }
    return call;
}

typedef struct {
    SecretCall *call;
    SecretOperation operation;
} WorkerStart;

static void *worker_main(void *argument) {
    WorkerStart start = *(WorkerStart *)argument;
    free(argument);
    SecretCall *call = start.call;
    int status = start.operation(call);
    pthread_mutex_lock(&call->mutex);
    call->status = status;
    call->finished = 1;
    pthread_cond_broadcast(&call->changed);
    pthread_mutex_unlock(&call->mutex);
    release(call);
    return NULL;
}

static int start_worker(SecretCall *call, SecretOperation operation) {
    WorkerStart *start = malloc(sizeof *start);
    if (start == NULL) return ENOMEM;
    start->call = call;
    start->operation = operation;

    pthread_attr_t attributes;
    pthread_attr_init(&attributes);
    pthread_attr_setdetachstate(&attributes, PTHREAD_CREATE_DETACHED);
    // The worker inherits this mask: signals such as SIGINT stay with the
    // program's own threads instead of landing in the middle of GLib.
    sigset_t all, previous;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &previous);
    pthread_t thread;
    int failure = pthread_create(&thread, &attributes, worker_main, start);
    pthread_sigmask(SIG_SETMASK, &previous, NULL);
    pthread_attr_destroy(&attributes);
    if (failure != 0) free(start);
    return failure;
}

/// Waits (holding `call->mutex`) until the worker finishes or the deadline
/// of the current phase passes. Returns 1 when finished.
static int wait_for_worker(SecretCall *call) {
    while (!call->finished) {
        unsigned limit = call->unlocking ? call->unlock_timeout_ms : call->call_timeout_ms;
        struct timespec deadline = adding_ms(call->phase_started, limit);
        int waited = pthread_cond_timedwait(&call->changed, &call->mutex, &deadline);
        if (waited == ETIMEDOUT && !call->finished) {
            // The worker may have moved to another phase just now, which
            // resets the deadline; only give up if it has really passed.
            struct timespec now = monotonic_now();
            unsigned current = call->unlocking ? call->unlock_timeout_ms : call->call_timeout_ms;
            struct timespec current_deadline = adding_ms(call->phase_started, current);
            if (now.tv_sec > current_deadline.tv_sec ||
                (now.tv_sec == current_deadline.tv_sec && now.tv_nsec >= current_deadline.tv_nsec)) {
                return 0;
            }
        }
    }
    return 1;
}

int secret_call_run(SecretCall *call, SecretOperation operation, char **secret, size_t *secret_length,
                    char *message, size_t message_capacity) {
    pthread_mutex_lock(&call->mutex);
    call->phase_started = monotonic_now();
    call->references += 1; // the worker's
    pthread_mutex_unlock(&call->mutex);

    int failure = start_worker(call, operation);
    if (failure != 0) {
        call->references -= 1;
        char text[128];
        snprintf(text, sizeof text, "could not start a keyring thread: %s", strerror(failure));
        csecret_set_message(message, message_capacity, text);
        release(call);
        return CSECRET_FAILED;
    }

    pthread_mutex_lock(&call->mutex);
    if (!wait_for_worker(call)) {
        int unlocking = call->unlocking;
        call->timeout_status = unlocking ? CSECRET_UNLOCK_TIMED_OUT : CSECRET_TIMED_OUT;
        pthread_mutex_unlock(&call->mutex);
        call->fn->g_cancellable_cancel(call->cancellable);
        pthread_mutex_lock(&call->mutex);
        struct timespec grace_end = adding_ms(monotonic_now(), cancel_grace_ms);
        while (!call->finished) {
            if (pthread_cond_timedwait(&call->changed, &call->mutex, &grace_end) == ETIMEDOUT) break;
        }
        if (!call->finished) {
            call->status = call->timeout_status;
            char text[128];
            snprintf(text, sizeof text, "no answer within %u ms",
                     unlocking ? call->unlock_timeout_ms : call->call_timeout_ms);
            // The worker still runs; it will free the call when it returns.
            csecret_set_message(message, message_capacity, text);
            int status = call->timeout_status;
            pthread_mutex_unlock(&call->mutex);
            release(call);
            return status;
        }
    }
    int status = call->status;
    csecret_set_message(message, message_capacity, call->message);
    if (status == CSECRET_OK && secret != NULL && call->found_secret != NULL) {
        *secret = call->found_secret;
        if (secret_length) *secret_length = call->found_length;
        call->found_secret = NULL;
        call->found_length = 0;
    }
    pthread_mutex_unlock(&call->mutex);
    release(call);
    return status;
}

/* The unlock prompt has its own time limit: the phase's clock starts again when it opens and when it closes. */
static void set_unlocking(SecretCall *call, int unlocking) {
    pthread_mutex_lock(&call->mutex);
    call->unlocking = unlocking;
    call->phase_started = monotonic_now();
    pthread_cond_broadcast(&call->changed);
    pthread_mutex_unlock(&call->mutex);
}

void secret_call_begin_unlock(SecretCall *call) { set_unlocking(call, 1); }

void secret_call_end_unlock(SecretCall *call) { set_unlocking(call, 0); }

int secret_call_timeout_status(SecretCall *call) {
    pthread_mutex_lock(&call->mutex);
    int status = call->timeout_status;
    pthread_mutex_unlock(&call->mutex);
    return status;
}
