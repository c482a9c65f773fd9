// The three keyring operations (store, look up, delete), each run as a
// SecretCall under a deadline, and the mapping of GLib's errors onto
// csecret_status.
//
// They use libsecret's SecretService API rather than the simpler
// secret_password_*_sync functions, because those hide a locked keyring:
// measured with gnome-keyring 42 and libsecret 0.20, secret_password_lookup
// of an item in a locked collection returns NULL with no error (as if not
// found) and secret_password_clear returns FALSE with no error. Searching
// with SECRET_SEARCH_ALL returns locked items too, so "locked" and "not
// found" can be told apart.
#include "csecret.h"
#include "secret_api.h"
#include "secret_call.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/// The status for a GLib error (freeing it), with its message in the call.
/// `otherwise` is the status for errors that mean nothing more specific.
static int classify(SecretCall *call, GError *error, int otherwise) {
    const SecretFunctions *fn = call->fn;
    int status = otherwise;
    if (error == NULL) {
        csecret_set_message(call->message, sizeof call->message, "unknown failure");
        return status;
    }
    if (error->domain == fn->g_io_error_quark() && error->code == G_IO_ERROR_CANCELLED) {
        int timeout = secret_call_timeout_status(call);
        status = timeout ? timeout : CSECRET_FAILED;
    } else if (error->domain == fn->secret_error_get_quark() && error->code == SECRET_ERROR_IS_LOCKED) {
        status = CSECRET_LOCKED;
    } else if (error->domain == fn->g_dbus_error_quark()) {
        int code = error->code;
        if (code == G_DBUS_ERROR_SERVICE_UNKNOWN || code == G_DBUS_ERROR_NAME_HAS_NO_OWNER ||
            (code >= G_DBUS_ERROR_SPAWN_EXEC_FAILED && code <= G_DBUS_ERROR_SPAWN_NO_MEMORY)) {
            // Nobody owns org.freedesktop.secrets and the bus could not
            // start anyone (no .service file, or activation failed).
            status = CSECRET_NO_SECRET_SERVICE;
        } else if (code == G_DBUS_ERROR_NO_REPLY || code == G_DBUS_ERROR_TIMEOUT ||
                   code == G_DBUS_ERROR_TIMED_OUT) {
            status = CSECRET_TIMED_OUT; // GDBus' own 25 s limit, if ours is longer
        }
    }
    // "GDBus.Error:org.freedesktop.DBus.Error.ServiceUnknown: The name..."
    // becomes "The name...": the status already says which error it was.
    fn->g_dbus_error_strip_remote_error(error);
    csecret_set_message(call->message, sizeof call->message, error->message);
    fn->g_error_free(error);
    return status;
}

/// Connects to the session bus and gets the Secret Service proxy.
static int open_service(SecretCall *call, SecretService **service) {
    const SecretFunctions *fn = call->fn;
    GError *error = NULL;
    // Connecting first, on its own, tells "no session bus" apart from
    // "no Secret Service on the bus".
    GDBusConnection *bus = fn->g_bus_get_sync(G_BUS_TYPE_SESSION, call->cancellable, &error);
    if (bus == NULL) return classify(call, error, CSECRET_NO_SESSION_BUS);
    // GLib's default for the shared session bus connection is to raise
    // SIGTERM in the whole process when the bus goes away; a command in
    // the middle of a push must not die because a keyring session ended.
    fn->g_dbus_connection_set_exit_on_close(bus, 0);
    *service = fn->secret_service_get_sync(SECRET_SERVICE_NONE, call->cancellable, &error);
    fn->g_object_unref(bus); // the service proxy holds its own reference
    if (*service == NULL) return classify(call, error, CSECRET_FAILED);
    return CSECRET_OK;
}

/// Asks the service to unlock `objects` (items or collections), which may
/// show a prompt; the unlock deadline applies meanwhile.
static int unlock(SecretCall *call, SecretService *service, GList *objects) {
    const SecretFunctions *fn = call->fn;
    GError *error = NULL;
    GList *unlocked = NULL;
    secret_call_begin_unlock(call);
    int count = fn->secret_service_unlock_sync(service, objects, call->cancellable, &unlocked, &error);
    secret_call_end_unlock(call);
    if (unlocked) fn->g_list_free_full(unlocked, fn->g_object_unref);
    if (error) return classify(call, error, CSECRET_FAILED);
    if (count <= 0) {
        // gnome-keyring answers a prompt it could not show (no display, so
        // gcr-prompter fails to start) with Completed(dismissed=true), the
        // same answer as a person pressing Cancel.
        csecret_set_message(call->message, sizeof call->message, "the unlock prompt was dismissed");
        return CSECRET_DISMISSED;
    }
    return CSECRET_OK;
}

/// Every item with the call's attributes, locked ones included.
static int search(SecretCall *call, SecretService *service, GList **items) {
    GError *error = NULL;
    *items = call->fn->secret_service_search_sync(service, &call->schema, call->attributes, SECRET_SEARCH_ALL,
                                                  call->cancellable, &error);
    if (error) return classify(call, error, CSECRET_FAILED);
    if (*items == NULL) {
        csecret_set_message(call->message, sizeof call->message, "no matching item");
        return CSECRET_NOT_FOUND;
    }
    return CSECRET_OK;
}

static int store_operation(SecretCall *call) {
    const SecretFunctions *fn = call->fn;
    SecretService *service = NULL;
    int status = open_service(call, &service);
    if (status != CSECRET_OK) return status;

    GError *error = NULL;
    SecretCollection *collection = fn->secret_collection_for_alias_sync(service, "default", SECRET_COLLECTION_NONE,
                                                            call->cancellable, &error);
    if (error) {
        status = classify(call, error, CSECRET_FAILED);
    } else if (collection == NULL) {
        // Storing would make the service create a keyring, which needs a
        // new password from a prompt: not something to do behind a
        // command's back.
        csecret_set_message(call->message, sizeof call->message, "the Secret Service has no default collection");
        status = CSECRET_NO_DEFAULT_KEYRING;
    } else if (fn->secret_collection_get_locked(collection)) {
        GList only = {collection, NULL, NULL};
        status = unlock(call, service, &only);
    }
    if (status == CSECRET_OK) {
        SecretValue *value = fn->secret_value_new(call->secret, (ptrdiff_t)call->secret_length, "text/plain");
        int stored = fn->secret_service_store_sync(service, &call->schema, call->attributes, "default",
                                                   call->label, value, call->cancellable, &error);
        fn->secret_value_unref(value);
        if (!stored) status = classify(call, error, CSECRET_FAILED);
    }
    if (collection) fn->g_object_unref(collection);
    fn->g_object_unref(service);
    return status;
}

/// What lookup and delete do with the items the query found (one at least).
typedef int (*FoundItemsOperation)(SecretCall *call, SecretService *service, GList *items);

/// Opens the service, finds the items the query names, runs `operation` on
/// them when there are some, and frees both.
static int on_found_items(SecretCall *call, FoundItemsOperation operation) {
    const SecretFunctions *fn = call->fn;
    SecretService *service = NULL;
    int status = open_service(call, &service);
    if (status != CSECRET_OK) return status;

    GList *items = NULL;
    status = search(call, service, &items);
    if (status == CSECRET_OK) status = operation(call, service, items);
    if (items) fn->g_list_free_full(items, fn->g_object_unref);
    fn->g_object_unref(service);
    return status;
}

static int lookup_found(SecretCall *call, SecretService *service, GList *items) {
    const SecretFunctions *fn = call->fn;
    // Storing replaces, so there is one item; should there be more (e.g. in
    // two collections), the newest one wins.
    SecretItem *item = NULL;
    for (GList *each = items; each; each = each->next) {
        if (item == NULL || fn->secret_item_get_modified(each->data) > fn->secret_item_get_modified(item)) {
            item = each->data;
        }
    }
    int status = CSECRET_OK;
    if (fn->secret_item_get_locked(item)) {
        GList only = {item, NULL, NULL};
        status = unlock(call, service, &only);
    }
    if (status == CSECRET_OK) {
        GError *error = NULL;
        if (!fn->secret_item_load_secret_sync(item, call->cancellable, &error)) {
            status = classify(call, error, CSECRET_FAILED);
        }
    }
    if (status != CSECRET_OK) return status;
    SecretValue *value = fn->secret_item_get_secret(item);
    if (value == NULL) {
        csecret_set_message(call->message, sizeof call->message, "the item's secret could not be read");
        return fn->secret_item_get_locked(item) ? CSECRET_LOCKED : CSECRET_FAILED;
    }
    size_t length = 0;
    const char *bytes = fn->secret_value_get(value, &length);
    call->found_secret = malloc(length + 1);
    if (call->found_secret == NULL) {
        csecret_set_message(call->message, sizeof call->message, "out of memory");
        status = CSECRET_FAILED;
    } else {
        memcpy(call->found_secret, bytes, length);
        call->found_secret[length] = '\0';
        call->found_length = length;
    }
    fn->secret_value_unref(value);
    return status;
}

static int delete_found(SecretCall *call, SecretService *service, GList *items) {
    const SecretFunctions *fn = call->fn;
    int status = CSECRET_OK;
    GList *locked = NULL;
    for (GList *each = items; each; each = each->next) {
        if (fn->secret_item_get_locked(each->data)) {
            GList *link = calloc(1, sizeof *link);
            if (link == NULL) break;
            link->data = each->data;
            link->next = locked;
            if (locked) locked->prev = link;
            locked = link;
        }
    }
    if (locked) {
        status = unlock(call, service, locked);
        while (locked) {
            GList *next = locked->next;
            free(locked);
            locked = next;
        }
    }
    for (GList *each = items; status == CSECRET_OK && each; each = each->next) {
        GError *error = NULL;
        if (!fn->secret_item_delete_sync(each->data, call->cancellable, &error)) {
            status = classify(call, error, CSECRET_FAILED);
        }
    }
    return status;
}

static int lookup_operation(SecretCall *call) { return on_found_items(call, lookup_found); }

static int delete_operation(SecretCall *call) { return on_found_items(call, delete_found); }

/// Loads libsecret, copies the query into a SecretCall and runs `operation`.
static int run(const csecret_query *query, const char *label, const char *secret, size_t secret_length,
               SecretOperation operation, char **found, size_t *found_length, char *message,
               size_t message_capacity) {
    const SecretFunctions *fn = csecret_functions(message, message_capacity);
    if (fn == NULL) return CSECRET_NOT_LOADABLE;
    SecretCall *call = secret_call_new(fn, query, label, secret, secret_length, message, message_capacity);
    if (call == NULL) return CSECRET_FAILED;
    return secret_call_run(call, operation, found, found_length, message, message_capacity);
}

int csecret_store(const csecret_query *query, const char *label, const char *secret, size_t secret_length,
                  char *message, size_t message_capacity) {
    if (label == NULL || secret == NULL) {
        csecret_set_message(message, message_capacity, "a label and a secret are required");
        return CSECRET_FAILED;
    }
    return run(query, label, secret, secret_length, store_operation, NULL, NULL, message, message_capacity);
}

int csecret_lookup(const csecret_query *query, char **secret, size_t *secret_length, char *message,
                   size_t message_capacity) {
    if (secret == NULL || secret_length == NULL) {
        csecret_set_message(message, message_capacity, "nowhere to put the secret");
        return CSECRET_FAILED;
    }
    *secret = NULL;
    *secret_length = 0;
    return run(query, NULL, NULL, 0, lookup_operation, secret, secret_length, message, message_capacity);
}

int csecret_delete(const csecret_query *query, char *message, size_t message_capacity) {
    return run(query, NULL, NULL, 0, delete_operation, NULL, NULL, message, message_capacity);
}

void csecret_free_secret(char *secret, size_t secret_length) {
    if (secret == NULL) return;
    explicit_bzero(secret, secret_length);
    free(secret);
}
